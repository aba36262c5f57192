//go:build linux

package tree

import (
	"errors"

	"golang.org/x/sys/unix"
)

// mountID is the file system and mount a removal stays on: the device,
// and the mount's id (statx STATX_MNT_ID, Linux 5.8), which tells a bind
// mount of the same file system apart.
type mountID struct {
	dev    uint64
	mnt    uint64
	hasMnt bool
}

// statxMount reads name of dirfd ("": dirfd itself), never following a
// symlink or triggering an automount.
func statxMount(dirfd int, name string, x *unix.Statx_t) error {
	flags := unix.AT_SYMLINK_NOFOLLOW | unix.AT_NO_AUTOMOUNT
	if name == "" {
		flags |= unix.AT_EMPTY_PATH
	}
	for {
		err := unix.Statx(dirfd, name, flags, unix.STATX_TYPE|unix.STATX_MNT_ID, x)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

func idOf(x *unix.Statx_t) mountID {
	return mountID{dev: unix.Mkdev(x.Dev_major, x.Dev_minor), mnt: x.Mnt_id, hasMnt: x.Mask&unix.STATX_MNT_ID != 0}
}

// mountOf is the mount the folder fd is on.
func mountOf(fd int) (mountID, error) {
	var x unix.Statx_t
	if err := statxMount(fd, "", &x); err != nil {
		return mountID{}, err
	}
	return idOf(&x), nil
}

// other reports whether x is a mount point or on another mount than the
// removal's top, and whether it is of the top's file system (a bind
// mount).
func (r *remover) other(x *unix.Statx_t) (mounted, bind bool) {
	id := idOf(x)
	if id.dev != r.top.dev {
		return true, false
	}
	root := x.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && x.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0
	if root || id.hasMnt && r.top.hasMnt && id.mnt != r.top.mnt {
		return true, true
	}
	return false, false
}

// crossed reports whether the folder sub, just opened, is another mount.
func (r *remover) crossed(sub int) (mounted, bind bool) {
	var x unix.Statx_t
	if err := statxMount(sub, "", &x); err != nil {
		return true, false // not told: never entered
	}
	return r.other(&x)
}

// mountedAt reports whether something is mounted on name of dirfd (st: its
// lstat, unused here: statx tells the mount).
func (r *remover) mountedAt(dirfd int, name string, _ *unix.Stat_t) (mounted, bind bool) {
	var x unix.Statx_t
	if err := statxMount(dirfd, name, &x); err != nil {
		return false, false
	}
	return r.other(&x)
}
