//go:build linux

package linux

import (
	"context"
	"fmt"
	"path/filepath"

	"rambar/ramdisk"
)

var _ ramdisk.MountTracer = (*Engine)(nil)

// MountsOf implements ramdisk.MountTracer from this process's mount table:
// every mount whose device is that of the file system at v's mount point
// (its mount point, a cover over a folder, any bind of it). Each is told
// apart from a later mount at the same place by its mount ID and device:
// both are reused by the kernel, but not both at one place while the
// disk's lock is held.
func (e *Engine) MountsOf(_ context.Context, v ramdisk.Volume) ([]ramdisk.Mount, error) {
	ms, err := e.mounts()
	if err != nil {
		return nil, fmt.Errorf("mounts of %s: %w", v.Name, err)
	}
	disk, ok := mountAt(ms, filepath.Clean(v.MountPoint))
	if !ok {
		return nil, nil
	}
	var out []ramdisk.Mount
	for _, m := range ms {
		if m.Major == disk.Major && m.Minor == disk.Minor {
			out = append(out, ramdisk.Mount{Point: m.MountPoint, ID: mountKey(m)})
		}
	}
	return out, nil
}

// StillMounted implements ramdisk.MountTracer: those of ms whose mount (ID
// and device, at the same place) is in the mount table now.
func (e *Engine) StillMounted(_ context.Context, ms []ramdisk.Mount) ([]ramdisk.Mount, error) {
	now, err := e.mounts()
	if err != nil {
		return nil, fmt.Errorf("mounts left: %w", err)
	}
	there := map[ramdisk.Mount]bool{}
	for _, m := range now {
		there[ramdisk.Mount{Point: m.MountPoint, ID: mountKey(m)}] = true
	}
	var out []ramdisk.Mount
	for _, m := range ms {
		if there[m] {
			out = append(out, m)
		}
	}
	return out, nil
}

func mountKey(m mountEntry) string { return fmt.Sprintf("%d %d:%d", m.ID, m.Major, m.Minor) }
