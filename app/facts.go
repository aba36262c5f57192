package main

import (
	"context"
	"fmt"
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
// and every name mounted under the mount root.
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
	f.Taken = ramdisk.TakenNames(f.Caps.MountRoot)
	return f, nil
}
