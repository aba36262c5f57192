package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"rambar/ramdisk"
)

// disk is a mounted volume with its measurement.
type disk struct {
	ramdisk.Volume
	Usage    ramdisk.Usage
	UsageErr error
}

// disks lists the mounted RAM disks and measures each.
func (a *App) disks(ctx context.Context) ([]disk, error) {
	e, err := a.Engine()
	if err != nil {
		return nil, err
	}
	vs, err := e.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]disk, len(vs))
	for i, v := range vs {
		out[i].Volume = v
		out[i].Usage, out[i].UsageErr = e.Usage(ctx, v)
	}
	return out, nil
}

// findDisk returns the mounted disk with that name (exact match first, then
// case-insensitive), or ErrNotFound naming what is mounted.
func (a *App) findDisk(ctx context.Context, name string) (ramdisk.Volume, error) {
	e, err := a.Engine()
	if err != nil {
		return ramdisk.Volume{}, err
	}
	vs, err := e.List(ctx)
	if err != nil {
		return ramdisk.Volume{}, err
	}
	for _, v := range vs {
		if v.Name == name {
			return v, nil
		}
	}
	for _, v := range vs {
		if strings.EqualFold(v.Name, name) {
			return v, nil
		}
	}
	if len(vs) == 0 {
		return ramdisk.Volume{}, fmt.Errorf("%q: %w (none is mounted)", name, ramdisk.ErrNotFound)
	}
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	return ramdisk.Volume{}, fmt.Errorf("%q: %w (mounted: %s)", name, ramdisk.ErrNotFound, strings.Join(names, ", "))
}

// facts gathers what NewPlan needs: memory, mounted disks, memory they hold,
// and every name already in use under the mount root.
func (a *App) facts(ctx context.Context) (ramdisk.Facts, error) {
	e, err := a.Engine()
	if err != nil {
		return ramdisk.Facts{}, err
	}
	f := ramdisk.Facts{Caps: e.Caps()}
	if f.Memory, err = e.Memory(ctx); err != nil {
		return f, fmt.Errorf("read memory: %w", err)
	}
	ds, err := a.disks(ctx)
	if err != nil {
		return f, err
	}
	for _, d := range ds {
		f.Mounted = append(f.Mounted, d.Volume)
		if d.UsageErr == nil && d.Usage.HeldKnown {
			f.Held += d.Usage.Held
		} else if d.Allocation == ramdisk.AllocUpfront {
			f.Held += d.Size
		}
	}
	if root := f.Caps.MountRoot; root != "" {
		if ents, err := os.ReadDir(root); err == nil {
			for _, de := range ents {
				f.Taken = append(f.Taken, de.Name())
			}
		}
	}
	// A leftover empty folder under the mount root is not a mounted volume;
	// only names of mounted things block a new disk.
	f.Taken = a.mountedNames(f.Taken, ds)
	return f, nil
}

// mountedNames keeps the names in taken that are mount points (or RAM disks),
// so stale empty folders do not block a name.
func (a *App) mountedNames(taken []string, ds []disk) []string {
	e, _ := a.Engine()
	root := e.Caps().MountRoot
	var out []string
	for _, n := range taken {
		if ramdisk.IsMountPoint(root + "/" + n) {
			out = append(out, n)
		}
	}
	return out
}
