package main

import (
	"context"
	"errors"
	"fmt"

	"rambar/disks"
	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "reclaim", Summary: i18n.N("give back memory pinned by deleted files"),
		Doc:  i18n.N("It moves the contents out, makes the disk again, moves them back and verifies them by content hash."),
		Args: []arg{{Name: "NAME", Doc: i18n.N("a mounted RAM disk")}},
		Flags: []flagSpec{flagBool("force", i18n.N("reclaim even when little memory is pinned")),
			flagBool("resume", i18n.N("finish or undo a reclaim of NAME that was stopped (its contents wait in the data folder)"))},
		JSON: true, Example: "reclaim Work", Order: 35, Run: runReclaim})
}

func runReclaim(ctx context.Context, a *App, in *input) error {
	force, asJSON, pos := in.Bool("force"), in.Bool("json"), in.Args
	ctx, stop := interruptible(ctx)
	defer stop()
	svc, err := a.service()
	if err != nil {
		return err
	}
	if *in.Bool("resume") {
		return a.resumeReclaim(ctx, svc, pos[0])
	}
	v, err := svc.Find(ctx, pos[0])
	if err != nil {
		return err
	}
	fn, done := a.contentsProgress(*asJSON)
	res, err := svc.Reclaim(ctx, v, disks.ReclaimOptions{Force: *force, Progress: fn})
	done()
	if errors.Is(err, disks.ErrNotWorthwhile) || errors.Is(err, keeper.ErrReclaimStopped) || errors.Is(err, keeper.ErrRefused) {
		return refusedError{err}
	}
	if err != nil {
		return interrupted(ctx, err)
	}
	if *asJSON {
		return writeJSON(a.Stdout, toReclaimJSON(res))
	}
	gave := res.Before.Held - res.After.Held
	say := a.say()
	bytes, before, after := say.Size(ramdisk.Size(res.Bytes)), say.Size(res.Before.Held), say.Size(res.After.Held)
	if gave > 0 {
		fmt.Fprintln(a.Stdout, say.T("Reclaimed %s: %d files (%s) moved out and back, verified; memory held %s → %s (%s given back)",
			v.Name, res.Files, bytes, before, after, say.Size(gave)))
		return nil
	}
	fmt.Fprintln(a.Stdout, say.T("Reclaimed %s: %d files (%s) moved out and back, verified; memory held %s → %s",
		v.Name, res.Files, bytes, before, after))
	return nil
}

// resumeReclaim is reclaim --resume: it finishes or undoes a reclaim that
// was stopped, and says which.
func (a *App) resumeReclaim(ctx context.Context, svc *disks.Service, name string) error {
	fn, done := a.contentsProgress(false)
	how, v, err := svc.ResumeReclaim(ctx, name, fn)
	done()
	if errors.Is(err, keeper.ErrReclaimStopped) || errors.Is(err, keeper.ErrRefused) {
		return refusedError{err}
	}
	if err != nil {
		return interrupted(ctx, err)
	}
	switch how {
	case keeper.ResumeUndone:
		fmt.Fprintln(a.Stdout, a.say().T("Undid the stopped reclaim of %s: it was never ejected and holds its contents; the partial copy was removed", v.Name))
	case keeper.ResumeCleaned:
		fmt.Fprintln(a.Stdout, a.say().T("The stopped reclaim of %s had put its contents back, verified, before it was stopped; "+
			"the disk has been ejected since; what was left of the staging copy was removed", name))
	default:
		fmt.Fprintln(a.Stdout, a.say().T("Finished the stopped reclaim of %s at %s: its contents are back, verified; the staging copy was removed",
			v.Name, v.MountPoint))
	}
	return nil
}
