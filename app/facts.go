package main

import (
	"context"
	"fmt"

	"rambar/disks"
	"rambar/ramdisk"
)

// disk is a mounted volume with its measurement.
type disk = disks.Disk

// service is the use-case layer over this App's engine, files and options.
func (a *App) service() (*disks.Service, error) {
	if s := a.agentService(); s != nil {
		return s, nil
	}
	e, err := a.Engine()
	if err != nil {
		return nil, err
	}
	s := &disks.Service{Engine: e, Paths: a.Paths, NewKeeper: a.NewKeeper, Warn: a.warn}
	if a.Compress {
		s.CopyFile = compressedCopy()
	}
	return s, nil
}

// warn tells the user, on stderr, what RAMBar's files need them to know
// (disks.Service.Warn).
func (a *App) warn(msg string) { fmt.Fprintf(a.Stderr, "rambar: warning: %s\n", msg) }

// disks lists the mounted RAM disks and measures each.
func (a *App) disks(ctx context.Context) ([]disk, error) {
	s, err := a.service()
	if err != nil {
		return nil, err
	}
	return s.List(ctx)
}

// findDisk returns the mounted disk with that name (exact match first, then
// case-insensitive), or ErrNotFound naming what is mounted.
func (a *App) findDisk(ctx context.Context, name string) (ramdisk.Volume, error) {
	s, err := a.service()
	if err != nil {
		return ramdisk.Volume{}, err
	}
	return s.Find(ctx, name)
}
