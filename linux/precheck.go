//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"rambar/i18n"
	"rambar/ramdisk"
)

var _ ramdisk.Prechecker = (*Engine)(nil)

// Precheck implements ramdisk.Prechecker: what Create would refuse about
// p's mount point, found without making or changing anything, so the plan
// is shown only when it can be carried out. A disk mounted there wraps
// ErrExists; a file there, a folder that is not empty (but for the owner's
// fallback link), or one of another user's where a fallback link must be
// left wraps ErrMountPointTaken. Create checks again when it runs.
func (e *Engine) Precheck(ctx context.Context, p ramdisk.Plan) error {
	mp := filepath.Join(e.realRoot(), p.Name)
	if custom := customMountPoint(p, e.root); custom != "" {
		if p.FS == ramdisk.ZRAM {
			return i18n.Errorf("%w: --mount-point with zram (RAMBar finds zram disks under its mount root only); use tmpfs", ramdisk.ErrUnsupported)
		}
		mp = custom
	}
	ms, err := e.mounts()
	if err != nil {
		return err
	}
	if m, ok := mountAt(ms, mp); ok {
		return fmt.Errorf("%w: %s (%s from %s)", ramdisk.ErrExists, mp, m.FSType, m.Source)
	}
	var st unix.Stat_t
	if err := unix.Lstat(mp, &st); errors.Is(err, unix.ENOENT) {
		return nil
	} else if err != nil {
		return &os.PathError{Op: "lstat", Path: mp, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fmt.Errorf("%w: %s is there and is not a folder", ramdisk.ErrMountPointTaken, mp)
	}
	if p.CacheFallback != "" && int(st.Uid) != e.uid && st.Uid != 0 {
		return fmt.Errorf("%w: %s belongs to another user (uid %d)", ramdisk.ErrMountPointTaken, mp, st.Uid)
	}
	if err := ramdisk.CheckEmptyMountPoint(mp, e.uid); err != nil {
		return fmt.Errorf("%w: %s is there and %v", ramdisk.ErrMountPointTaken, mp, err)
	}
	return nil
}
