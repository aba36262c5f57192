package main

import (
	"context"
	"errors"
	"fmt"

	"rambar/disks"
	"rambar/keeper"
	"rambar/ramdisk"
)

// createOpts are what a caller of createDisk says beyond the Request.
type createOpts struct {
	// Size is the size as typed: "4G", "1.5GiB", "25%" (of this machine's memory).
	Size string
	// Quiet prints nothing (--json).
	Quiet bool
	// Contents says how the disk's contents are kept (create --keep/--mirror).
	Contents keeper.Options
}

// createDisk makes a disk through disks.Service.Create, printing the plan
// before the disk is made and what filling it brought, unless opts.Quiet.
func (a *App) createDisk(ctx context.Context, req ramdisk.Request, opts createOpts) (ramdisk.Plan, ramdisk.Volume, error) {
	ctx, stop := interruptible(ctx)
	defer stop()
	s, err := a.serviceFor(req.Name, opts.Size)
	if err != nil {
		return ramdisk.Plan{}, ramdisk.Volume{}, err
	}
	r := disks.CreateRequest{Input: ramdisk.Input{Name: req.Name, Size: opts.Size, FS: req.FS, Hidden: req.Hidden, Force: req.Force, Options: req.Options},
		Contents: opts.Contents}
	var done func()
	if !opts.Quiet {
		r.Planned = func(p ramdisk.Plan) { printPlan(a, p) }
		r.Progress, done = a.contentsProgress(false)
	}
	c, err := s.Create(ctx, r)
	if done != nil {
		done()
	}
	if err != nil {
		return c.Plan, ramdisk.Volume{}, interrupted(ctx, createErr(err))
	}
	switch {
	case opts.Quiet:
	case c.Reclaimed != "":
		fmt.Fprintln(a.Stdout, a.say().T("Put back the contents of a reclaim of %s that was stopped (from %s), verified", c.Volume.Name, c.Reclaimed))
	case c.Contents.Mode != ramdisk.Discard:
		printLoaded(a, c)
	}
	if c.Loaded.Snapshot != "" && !c.Contents.InPlace { // filled: a kept disk restored, a Mirror disk loaded
		a.handToAgent(c.Volume.Name)
	}
	return c.Plan, c.Volume, nil
}

// serviceFor is service, after the name and size's spelling are checked, so
// bad input is refused even where there is no engine.
func (a *App) serviceFor(name, size string) (*disks.Service, error) {
	if err := ramdisk.CheckInput(ramdisk.Input{Name: name, Size: size}); err != nil {
		return nil, err
	}
	return a.service()
}

// createErr maps a create's errors onto the CLI's exit codes.
func createErr(err error) error {
	if errors.Is(err, keeper.ErrClaimed) {
		return refusedError{err}
	}
	if errors.Is(err, disks.ErrContents) {
		return usagef("%v", withCreateFolder(err))
	}
	return contentsErr(err)
}

// printLoaded says what filling a kept or mirrored disk put on it.
func printLoaded(a *App, c disks.Created) {
	r, s := c.Loaded, a.say()
	switch {
	case c.Contents.Mode == ramdisk.Mirror:
		fmt.Fprintln(a.Stdout, s.T("Loaded %s: %d files (%s); changes are written back on save and eject", c.Contents.MirrorPath, r.Files, s.Size(ramdisk.Size(r.Bytes))))
		if c.Contents.InPlace {
			fmt.Fprintln(a.Stdout, s.T("In place at %s: the folder's own path now runs from memory; eject writes it back and shows the folder again", c.Contents.MirrorPath))
		}
		if r.Safety != nil { // a last save the folder never got
			fmt.Fprintln(a.Stdout, s.T("Warning: %s", s.said(r.Safety.Describe(c.Volume.Name, c.Contents.MirrorPath))))
		}
	case r.Snapshot != "":
		fmt.Fprintln(a.Stdout, s.T("Restored %d files (%s) saved %s", r.Files, s.Size(ramdisk.Size(r.Bytes)), r.Snapshot))
		if r.InUse != nil {
			fmt.Fprintln(a.Stdout, s.T("That snapshot was taken while in use: its files may not be one moment's state")+describeInUse(s, r.InUse))
		}
	default:
		fmt.Fprintln(a.Stdout, s.T("Contents are kept in %s (nothing saved yet)", c.Contents.Backing))
	}
}
