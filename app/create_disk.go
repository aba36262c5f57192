package main

import (
	"context"
	"fmt"

	"rambar/ramdisk"
)

// createOpts are what a caller of createDisk says beyond the Request.
type createOpts struct {
	// Size is the size as typed: "4G", "1.5GiB", "25%" (of this machine's memory).
	Size string
	// Quiet prints nothing (--json, the tray, `up`, which reports on its own).
	Quiet bool
	// Preset is the preset the disk is made from, nil for a one-off disk.
	// Kept and mirrored contents are restored from it once the disk exists.
	Preset *ramdisk.Preset
}

// createDisk is the one place a RAM disk is made, for `create`, `up`, `preset
// mount` and the tray: it checks the name and size, gathers the machine's
// facts, plans (refusing what memory cannot hold unless req.Force), prints the
// plan unless opts.Quiet, and has the engine make the disk.
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
	v, err := e.Create(ctx, plan)
	if err != nil {
		return plan, ramdisk.Volume{}, fmt.Errorf("create %s: %w", req.Name, err)
	}
	return plan, v, nil
}
