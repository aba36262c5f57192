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

// other reports whether x, a folder, is a mount point or on another mount
// than the removal's top, and whether it is of the top's file system (a
// bind mount). A folder of another device is another file system.
func (r *remover) other(x *unix.Statx_t) (mounted, bind bool) {
	id := idOf(x)
	if id.dev != r.top.dev {
		return true, false
	}
	return r.otherMount(x), true
}

// otherMount reports whether x is the root of a mount or on another mount
// than the top (where statx tells mounts apart).
func (r *remover) otherMount(x *unix.Statx_t) bool {
	id := idOf(x)
	root := x.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && x.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0
	return root || id.hasMnt && r.top.hasMnt && id.mnt != r.top.mnt
}

// crossed reports whether the folder sub, just opened, is another mount.
func (r *remover) crossed(sub int) (mounted, bind bool) {
	var x unix.Statx_t
	if err := statxMount(sub, "", &x); err != nil {
		return true, false // not told: never entered
	}
	return r.other(&x)
}

// mountedAt reports whether something is mounted on name of dirfd, a
// folder (dir) or a file. A file is told by its mount alone: its device
// may differ from its folder's on one file system (overlayfs layers), and
// an unlink never reaches into what is bound over it (EBUSY).
func (r *remover) mountedAt(dirfd int, name string, dir bool) (mounted, bind bool) {
	var x unix.Statx_t
	if err := statxMount(dirfd, name, &x); err != nil {
		return false, false
	}
	if dir {
		return r.other(&x)
	}
	return r.otherMount(&x), idOf(&x).dev == r.top.dev
}
