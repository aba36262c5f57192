//go:build linux

package linux

import (
	"context"
	"fmt"
	"path/filepath"

	"rambar/internal/diskid"
	"rambar/ramdisk"
)

var _ ramdisk.MountTracer = (*Engine)(nil)

// MountsOf implements ramdisk.MountTracer from this process's mount table:
// every mount whose device is that of the file system at v's mount point
// (its mount point, a cover over a folder, any bind of it). Each is told
// apart from a later mount at the same place by its mount ID, its device
// and the identity of the folder it shows (diskid.Of: inode and birth
// time): the kernel hands the first two out again at once (a tmpfs made
// again at the same place gets both), the birth time differs.
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
			out = append(out, ramdisk.Mount{Point: m.MountPoint, ID: mountKey(m, ms)})
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
	wanted := map[string]bool{}
	for _, m := range ms {
		wanted[m.Point] = true
	}
	there := map[ramdisk.Mount]bool{}
	for _, m := range now {
		if wanted[m.MountPoint] {
			there[ramdisk.Mount{Point: m.MountPoint, ID: mountKey(m, now)}] = true
		}
	}
	var out []ramdisk.Mount
	for _, m := range ms {
		if there[m] {
			out = append(out, m)
		}
	}
	return out, nil
}

// mountKey tells mount m apart from a later one at the same place: its
// mount ID, its device, and the identity of what its mount point shows
// when m is the mount seen there (the last of ms at that place).
func mountKey(m mountEntry, ms []mountEntry) string {
	id := ""
	if top, ok := mountAt(ms, m.MountPoint); ok && top.ID == m.ID {
		id, _ = diskid.Of(m.MountPoint)
	}
	return fmt.Sprintf("%d %d:%d %s", m.ID, m.Major, m.Minor, id)
}
