package main

import (
	"context"
	"fmt"

	"rambar/mirror"
	"rambar/ramdisk"
)

// createOpts are what a caller of createDisk says beyond the Request.
type createOpts struct {
	// Size is the size as typed: "4G", "1.5GiB", "25%" (of this machine's memory).
	Size string
	// Quiet prints nothing (--json, the tray, `up`, which reports on its own).
	Quiet bool
	// Preset is the preset the disk is made from, nil for a one-off disk.
	// Its contents mode is used when Contents is not set.
	Preset *ramdisk.Preset
	// Contents says how the disk's contents are kept (create --keep/--mirror).
	Contents mirror.Options
}

// createDisk is the one place a RAM disk is made, for `create`, `up`, `preset
// mount` and the tray: it checks the name and size, gathers the machine's
// facts, plans (refusing what memory cannot hold unless req.Force), prints the
// plan unless opts.Quiet, has the engine make the disk, and fills a kept or
// mirrored disk from its saved copy (a disk that cannot be filled is ejected
// again; the saved copy is never touched).
func (a *App) createDisk(ctx context.Context, req ramdisk.Request, opts createOpts) (ramdisk.Plan, ramdisk.Volume, error) {
	if err := ramdisk.ValidateName(req.Name); err != nil {
		return ramdisk.Plan{}, ramdisk.Volume{}, err
	}
	// Check the size's spelling before touching the engine, so bad input is
	// refused the same way everywhere; a percentage is resolved once memory is known.
	if _, err := ramdisk.ParseSize(opts.Size, ramdisk.MaxSize); err != nil {
		return ramdisk.Plan{}, ramdisk.Volume{}, err
	}
	f, err := a.facts(ctx)
	if err != nil {
		return ramdisk.Plan{}, ramdisk.Volume{}, err
	}
	if req.Size, err = ramdisk.ParseSize(opts.Size, f.Memory.Physical); err != nil {
		return ramdisk.Plan{}, ramdisk.Volume{}, err
	}
	plan, err := ramdisk.NewPlan(req, f)
	if err != nil {
		return ramdisk.Plan{}, ramdisk.Volume{}, err
	}
	if !opts.Quiet {
		printPlan(a, plan)
	}
	e, err := a.Engine()
	if err != nil {
		return plan, ramdisk.Volume{}, err
	}
	contents := opts.Contents
	if contents.Mode == ramdisk.Discard && opts.Preset != nil {
		contents = mirror.OptionsFromPreset(*opts.Preset)
	}
	undo, err := a.setupContents(req.Name, contents)
	if err != nil {
		return plan, ramdisk.Volume{}, err
	}
	v, err := e.Create(ctx, plan)
	if err != nil {
		undo()
		return plan, ramdisk.Volume{}, fmt.Errorf("create %s: %w", req.Name, err)
	}
	if contents.Mode != ramdisk.Discard {
		if _, err := a.loadContents(ctx, v, opts.Quiet); err != nil {
			return plan, ramdisk.Volume{}, err
		}
	}
	return plan, v, nil
}
