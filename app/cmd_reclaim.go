package main

import (
	"context"
	"errors"
	"fmt"

	"rambar/disks"
	"rambar/mirror"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "reclaim", Summary: "give back memory pinned by deleted files",
		Doc:   "It moves the contents out, makes the disk again, moves them back and verifies them by content hash.",
		Args:  []arg{{Name: "NAME", Doc: "a mounted RAM disk"}},
		Flags: []flagSpec{flagBool("force", "reclaim even when little memory is pinned")},
		JSON:  true, Example: "reclaim Work", Order: 35, Run: runReclaim})
}

func runReclaim(ctx context.Context, a *App, in *input) error {
	force, asJSON, pos := in.Bool("force"), in.Bool("json"), in.Args
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
