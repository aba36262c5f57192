//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"rambar/i18n"
	"rambar/internal/holders"
	"rambar/ramdisk"
)

var _ ramdisk.InPlacer = (*Engine)(nil)

// HideFolder implements ramdisk.InPlacer with a private bind mount of
// folder at hidden (an empty folder it makes, mode 0700, in a folder only
// RAMBar's user can reach): mount --bind FOLDER HIDDEN, then mount
// --make-private HIDDEN, so the disk mounted over FOLDER later does not
// propagate to it. Unlike a descriptor, a bind mount outlives RAMBar: a
// RAMBar started after a crash still reaches the folder beneath the disk.
// A folder that is a mount point, or holds one, is refused before
// (mirrorfolder.Check): the bind is not recursive.
func (e *Engine) HideFolder(ctx context.Context, folder, hidden string) error {
	ms, err := e.mounts()
	if err != nil {
		return err
	}
	if _, ok := mountAt(ms, hidden); ok {
		return i18n.Errorf("hide %s: %w: something is mounted at %s already", folder, ramdisk.ErrExists, hidden)
	}
	if err := e.admin.mkdir(ctx, hidden, rootMode); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("hide %s: mkdir %s: %w", folder, hidden, err)
	}
	if err := e.admin.bind(ctx, folder, hidden, true); err != nil {
		e.admin.rmdir(ctx, hidden)
		return fmt.Errorf("hide %s: %w", folder, err)
	}
	return nil
}

// FolderHidden implements ramdisk.InPlacer: something is mounted at hidden.
func (e *Engine) FolderHidden(hidden string) bool {
	ms, err := e.mounts()
	if err != nil {
		return false
	}
	_, ok := mountAt(ms, filepath.Clean(hidden))
	return ok
}

// UnhideFolder implements ramdisk.InPlacer: it unmounts the bind at hidden
// (lazily: nobody but RAMBar reaches it, and RAMBar holds nothing there
// now) and removes the empty folder. Nothing mounted there is no error.
func (e *Engine) UnhideFolder(ctx context.Context, hidden string) error {
	hidden = filepath.Clean(hidden)
	if e.FolderHidden(hidden) {
		if err := e.admin.unmount(ctx, hidden, true); err != nil && !errors.Is(err, syscall.EINVAL) {
			return fmt.Errorf("unhide: %w", err)
		}
	}
	if err := e.admin.rmdir(ctx, hidden); err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOENT) {
		return fmt.Errorf("unhide: rmdir %s: %w", hidden, err)
	}
	return nil
}

// Cover implements ramdisk.InPlacer: mount --bind DISK FOLDER. The disk
// stays mounted where it was too (its own mount point is how RAMBar lists
// and saves it), so v is returned as it is; the bind carries the disk's
// mount flags (nosuid, nodev, noexec).
func (e *Engine) Cover(ctx context.Context, v ramdisk.Volume, folder string) (ramdisk.Volume, error) {
	if e.Covers(ctx, v, folder) {
		return v, nil
	}
	if err := e.admin.bind(ctx, filepath.Clean(v.MountPoint), filepath.Clean(folder), false); err != nil {
		return v, fmt.Errorf("mount %s over %s: %w", v.Name, folder, err)
	}
	return v, nil
}

// Uncover implements ramdisk.InPlacer: umount FOLDER when what is mounted
// there is v. In use (a shell inside the folder), it gives a *BusyError
// naming the processes on the disk; force unmounts lazily.
func (e *Engine) Uncover(ctx context.Context, v ramdisk.Volume, folder string, force bool) (ramdisk.Volume, error) {
	ms, err := e.mounts()
	if err != nil {
		return v, err
	}
	folder = filepath.Clean(folder)
	top, ok := mountAt(ms, folder)
	if !ok || !e.covers(ms, v, folder) {
		return v, nil // nothing of v's there: uncovered already
	}
	if err := e.admin.unmount(ctx, folder, force); err != nil {
		if errors.Is(err, syscall.EBUSY) {
			return v, &ramdisk.BusyError{Volume: v.Name, Holders: holders.Find(e.proc, top.Major, top.Minor, ""), Err: err}
		}
		return v, fmt.Errorf("unmount %s from %s: %w", v.Name, folder, err)
	}
	return v, nil
}

// Reattach implements ramdisk.InPlacer: when the last mount at folder is a
// tmpfs RAMBar made (source "rambar") and nothing is mounted at
// mountPoint (under the mount root), the tmpfs is bound there again.
func (e *Engine) Reattach(ctx context.Context, folder, mountPoint string) (bool, error) {
	ms, err := e.mounts()
	if err != nil {
		return false, err
	}
	folder, mountPoint = filepath.Clean(folder), filepath.Clean(mountPoint)
	top, ok := mountAt(ms, folder)
	if !ok || top.FSType != "tmpfs" || top.Source != mountSource || filepath.Dir(mountPoint) != e.realRoot() {
		return false, nil
	}
	if _, taken := mountAt(ms, mountPoint); taken {
		return false, nil
	}
	if _, err := e.makeMountPoint(ctx, mountPoint, false); err != nil {
		return false, err
	}
	if err := e.admin.bind(ctx, folder, mountPoint, false); err != nil {
		return false, fmt.Errorf("mount the disk over %s at %s again: %w", folder, mountPoint, err)
	}
	return true, nil
}

// Covers implements ramdisk.InPlacer: the last mount at folder is the file
// system mounted at v's mount point.
func (e *Engine) Covers(_ context.Context, v ramdisk.Volume, folder string) bool {
	ms, err := e.mounts()
	return err == nil && e.covers(ms, v, filepath.Clean(folder))
}

func (e *Engine) covers(ms []mountEntry, v ramdisk.Volume, folder string) bool {
	top, ok := mountAt(ms, folder)
	disk, dok := mountAt(ms, filepath.Clean(v.MountPoint))
	if !ok || !dok || folder == filepath.Clean(v.MountPoint) {
		return false
	}
	if _, ram := kind(top); !ram {
		return false
	}
	return top.Major == disk.Major && top.Minor == disk.Minor
}
