package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"rambar/disks"
	"rambar/mirror"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "reclaim", Args: "NAME [--force] [--json]",
		Summary: "give back memory pinned by deleted files: move contents out, make the disk again, move them back", Order: 35, Run: runReclaim})
}

func runReclaim(ctx context.Context, a *App, args []string) error {
	fl := flag.NewFlagSet("reclaim", flag.ContinueOnError)
	force := fl.Bool("force", false, "reclaim even when little memory is pinned")
	asJSON := fl.Bool("json", false, "print JSON")
	pos, err := parseFlags(fl, args)
	if err != nil {
		return err
	}
	if err := wantArgs("reclaim", pos, 1, 1); err != nil {
		return err
	}
	svc, err := a.service()
	if err != nil {
		return err
	}
	v, err := svc.Find(ctx, pos[0])
	if err != nil {
		return err
	}
	fn, done := a.contentsProgress()
	if *asJSON {
		fn = nil
	}
	res, err := svc.Reclaim(ctx, v, disks.ReclaimOptions{Force: *force, Progress: fn})
	done()
	if errors.Is(err, disks.ErrNotWorthwhile) {
		return refusedError{err}
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.Stdout, struct {
			Version int `json:"version"`
			mirror.ReclaimResult
		}{jsonVersion, res})
	}
	gave := res.Before.Held - res.After.Held
	fmt.Fprintf(a.Stdout, "Reclaimed %s: %d files (%s) moved out and back, verified; memory held %s → %s",
		v.Name, res.Files, ramdisk.Size(res.Bytes).Short(), res.Before.Held.Short(), res.After.Held.Short())
	if gave > 0 {
		fmt.Fprintf(a.Stdout, " (%s given back)", gave.Short())
	}
	fmt.Fprintln(a.Stdout)
	return nil
}
