package darwin

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"rambar/i18n"
	"rambar/ramdisk"
)

var _ ramdisk.InPlacer = (*Engine)(nil)

// HideFolder implements ramdisk.InPlacer: macOS has no bind mount, and a
// descriptor opened before the mount would not outlive RAMBar, so there is
// no hidden copy: a Mirror disk in place is written back by uncovering its
// folder, writing back, and covering it again (disks does that).
func (e *Engine) HideFolder(context.Context, string, string) error {
	return i18n.Errorf("%w: a hidden copy of a folder on macOS", ramdisk.ErrUnsupported)
}

// FolderHidden implements ramdisk.InPlacer: never on macOS.
func (e *Engine) FolderHidden(string) bool { return false }

// UnhideFolder implements ramdisk.InPlacer: nothing to remove on macOS.
func (e *Engine) UnhideFolder(context.Context, string) error { return nil }

// Cover implements ramdisk.InPlacer:
//
//	diskutil unmount DEV
//	diskutil mount -mountOptions rw,nosuid,nodev[,noexec][,nobrowse] -mountPoint FOLDER DEV
//
// A volume is mounted in one place on macOS, so afterwards v's mount
// point is the folder. If the second mount fails the volume is mounted
// back where it was. tmpfs disks (mount_tmpfs) cannot be moved.
func (e *Engine) Cover(ctx context.Context, v ramdisk.Volume, folder string) (ramdisk.Volume, error) {
	if v.FS == ramdisk.TmpFS {
		return v, i18n.Errorf("%w: in place with tmpfs on macOS (use APFS or HFS+)", ramdisk.ErrUnsupported)
	}
	if e.Covers(ctx, v, folder) {
		v.MountPoint = folder
		return v, nil
	}
	dev, opts, err := e.volumeNode(ctx, v)
	if err != nil {
		return v, err
	}
	if err := e.unmountVolume(ctx, v, dev, false); err != nil {
		return v, err
	}
	argv := []string{"diskutil", "mount", "-mountOptions", opts, "-mountPoint", folder, dev}
	if _, err := e.run(ctx, argv...); err != nil {
		cause := fmt.Errorf("diskutil mount -mountPoint %s %s: %w", folder, dev, toolErr(err))
		if _, berr := e.run(ctx, "diskutil", "mount", "-mountOptions", opts, dev); berr != nil {
			return v, errors.Join(cause, fmt.Errorf("and mounting it back: diskutil mount %s: %w", dev, toolErr(berr)))
		}
		return e.remounted(ctx, v, dev, cause)
	}
	v.MountPoint = folder
	return v, nil
}

// Uncover implements ramdisk.InPlacer: diskutil unmount [force] DEV, then
// diskutil mount DEV (at /Volumes/NAME); v's mount point is then that.
func (e *Engine) Uncover(ctx context.Context, v ramdisk.Volume, folder string, force bool) (ramdisk.Volume, error) {
	if !e.Covers(ctx, v, folder) {
		return v, nil
	}
	v.MountPoint = folder
	dev, opts, err := e.volumeNode(ctx, v)
	if err != nil {
		return v, err
	}
	if err := e.unmountVolume(ctx, v, dev, force); err != nil {
		return v, err
	}
	if _, err := e.run(ctx, "diskutil", "mount", "-mountOptions", opts, dev); err != nil {
		return v, fmt.Errorf("diskutil mount %s: %w (the folder %s is uncovered; the disk is unmounted)", dev, toolErr(err), folder)
	}
	return e.remounted(ctx, v, dev, nil)
}

// Reattach implements ramdisk.InPlacer: a volume over a folder is listed
// there, so there is nothing to reattach.
func (e *Engine) Reattach(context.Context, string, string) (bool, error) { return false, nil }

// Covers implements ramdisk.InPlacer: the volume mounted at folder is v's.
// The folder is the volume's mount point when both are the same file
// (volume and inode), not when the paths are the same string: diskutil
// and the mount table may name a folder under /Users by its firmlinked
// form, /System/Volumes/Data/Users/….
func (e *Engine) Covers(ctx context.Context, v ramdisk.Volume, folder string) bool {
	d, err := e.diskInfo(ctx, folder)
	if err != nil || !d.IsDiskImage() || !e.samePlace(d.MountPoint, folder) {
		return false
	}
	whole := devPath(d.ParentWholeDisk)
	return v.Device == "" || whole == v.Device || slices.ContainsFunc(d.Stores(), func(s string) bool { return devPath(s) == v.Device })
}

// volumeNode is the device node of v's volume and the mount options to
// mount it with again: nosuid and nodev always, noexec and nobrowse as it
// has them now.
func (e *Engine) volumeNode(ctx context.Context, v ramdisk.Volume) (string, string, error) {
	d, err := e.diskInfo(ctx, v.MountPoint)
	if err != nil {
		return "", "", err
	}
	if !e.samePlace(d.MountPoint, v.MountPoint) {
		return "", "", i18n.Errorf("%s: %w (nothing is mounted at %s)", v.Name, ramdisk.ErrNotFound, v.MountPoint)
	}
	dev := d.DeviceNode
	if dev == "" {
		dev = devPath(d.DeviceIdentifier)
	}
	opts := []string{"rw", "nosuid", "nodev"}
	if res, err := e.run(ctx, "mount"); err == nil {
		for _, m := range parseMount(res.Stdout) {
			if !e.samePlace(m.MountPoint, v.MountPoint) {
				continue
			}
			for _, o := range m.Options {
				if o == "noexec" || o == "nobrowse" {
					opts = append(opts, o)
				}
			}
		}
	}
	if v.Hidden && !slices.Contains(opts, "nobrowse") {
		opts = append(opts, "nobrowse")
	}
	return dev, strings.Join(opts, ","), nil
}

// unmountVolume unmounts v's volume (diskutil unmount [force] DEV); in use,
// a *BusyError naming the holders.
func (e *Engine) unmountVolume(ctx context.Context, v ramdisk.Volume, dev string, force bool) error {
	argv := []string{"diskutil", "unmount", dev}
	if force {
		argv = []string{"diskutil", "unmount", "force", dev}
	}
	res, err := e.run(ctx, argv...)
	if err == nil {
		return nil
	}
	cause := fmt.Errorf("%s: %w", strings.Join(argv, " "), toolErr(err))
	if out := both(res); isBusy(err, out) || len(e.holders(ctx, v.MountPoint)) > 0 {
		return e.busy(ctx, v, dissenters(out), cause)
	}
	return cause
}

// remounted is v at the mount point its volume has now, with cause (if
// any) as the error.
func (e *Engine) remounted(ctx context.Context, v ramdisk.Volume, dev string, cause error) (ramdisk.Volume, error) {
	d, err := e.diskInfo(ctx, dev)
	if err != nil {
		return v, errors.Join(cause, err)
	}
	v.MountPoint = d.MountPoint
	return v, cause
}

// fileID is a file's volume (st_dev) and inode.
type fileID struct{ dev, ino uint64 }

// statID is path's fileID (stat(2), following a last symlink as the
// mount table does).
func statID(path string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fileID{}, fmt.Errorf("stat %s: %w", path, err)
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, nil
}

// samePlace reports whether mountPoint (as diskutil or mount names it)
// and folder are the same folder: equal paths, or the same volume and
// inode ("" is no mount point).
func (e *Engine) samePlace(mountPoint, folder string) bool {
	if mountPoint == "" || folder == "" {
		return false
	}
	if filepath.Clean(mountPoint) == filepath.Clean(folder) {
		return true
	}
	a, err := e.fileID(mountPoint)
	if err != nil {
		return false
	}
	b, err := e.fileID(folder)
	return err == nil && a == b
}
