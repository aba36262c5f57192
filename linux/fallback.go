//go:build linux

package linux

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// leaveFallback makes the link MP/Caches -> target on the file system below
// the mount point, before a disk is mounted there (ramdisk.Plan.CacheFallback).
// The folder must be a real folder, the disk owner's: one of root's (the
// engine just made it, or an older RAMBar did) is given to the owner
// through admin, so the link and what apps write through it while the disk
// is away are theirs; one of another user's is refused. Nothing there is
// followed: the link is read, replaced and made relative to the folder's
// descriptor (O_NOFOLLOW), and a link of the owner's that leads elsewhere
// (an older data folder) is replaced.
func (e *Engine) leaveFallback(ctx context.Context, mp, target string) error {
	if !filepath.IsAbs(target) {
		return fmt.Errorf("cache fallback %q is not an absolute path", target)
	}
	var st unix.Stat_t
	if err := unix.Lstat(mp, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fmt.Errorf("%w: %s is there and is not a folder", ramdisk.ErrMountPointTaken, mp)
	}
	switch int(st.Uid) {
	case e.uid:
	case 0:
		if err := e.admin.chown(ctx, mp, e.uid, e.gid); err != nil {
			return fmt.Errorf("chown %s: %w", mp, err)
		}
	default:
		return fmt.Errorf("%w: %s belongs to another user (uid %d)", ramdisk.ErrMountPointTaken, mp, st.Uid)
	}
	fd, err := unix.Open(mp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: mp, Err: err}
	}
	defer unix.Close(fd)
	if err := unix.Fstat(fd, &st); err != nil || int(st.Uid) != e.uid {
		return fmt.Errorf("%w: %s changed while it was being checked", ramdisk.ErrMountPointTaken, mp)
	}
	return ramdisk.PlaceFallbackLink(fd, mp, target, e.uid, e.gid)
}

// DropMountPoint implements ramdisk.MountPointDropper: the folder of disk
// name under the mount root, once its last cache is off (the caches' Gone
// and cache off of a disk that is away), when nothing is mounted there.
func (e *Engine) DropMountPoint(ctx context.Context, name string) {
	if ramdisk.ValidateName(name) != nil {
		return
	}
	mp := filepath.Join(e.root, name)
	if ramdisk.IsMountPoint(mp) {
		return
	}
	e.dropMountPoint(ctx, mp)
}

// dropMountPoint removes an ejected disk's mount point folder, best effort
// (an empty folder left behind blocks nothing). A folder whose fallback
// link leads to a folder that exists stays: cache targets lead through it
// while the disk is away. A link that leads nowhere (no cache is on the
// disk any more) is removed with the folder; a folder holding anything else
// is left as it is.
func (e *Engine) dropMountPoint(ctx context.Context, mp string) {
	// Through the folder's descriptor, never a link at its place: the
	// mount root may be a user's own folder (RAMBAR_MOUNT_ROOT) under sudo.
	fd, err := unix.Open(mp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	d := os.NewFile(uintptr(fd), mp)
	defer d.Close()
	buf := make([]byte, 4096)
	if n, err := unix.Readlinkat(fd, ramdisk.FallbackLink, buf); err == nil {
		target := string(buf[:n])
		if st, err := os.Stat(target); err == nil && st.IsDir() && filepath.IsAbs(target) {
			return
		}
		unix.Unlinkat(fd, ramdisk.FallbackLink, 0)
	}
	if names, _ := d.Readdirnames(1); len(names) > 0 {
		return
	}
	e.admin.rmdir(ctx, mp)
}
