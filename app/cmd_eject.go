package main

import (
	"context"
	"errors"
	"fmt"

	"rambar/mirror"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "eject", Summary: "eject RAM disks and free their memory (kept and mirrored disks are saved first)",
		Doc:  "Name the disks, or give --all. A busy disk names the processes that hold it.",
		Args: []arg{{Name: "NAME", Optional: true, Repeat: true}}, Usage: "NAME... | --all",
		Flags: []flagSpec{
			flagBool("all", "eject every RAM disk"),
			flagBool("force", "eject even if files are open on it"),
			flagBool("no-save", "do not save kept or mirrored disks first: their unsaved changes are lost"),
		},
		Example: "eject Scratch\neject --all", Order: 30, Run: runEject})
}

func runEject(ctx context.Context, a *App, in *input) error {
	all, force, noSave, pos := in.Bool("all"), in.Bool("force"), in.Bool("no-save"), in.Args
	if *all == (len(pos) > 0) {
		return in.usageErr("name the disks, or give --all")
	}
	e, err := a.Engine()
	if err != nil {
		return err
	}
	var vs []ramdisk.Volume
	if *all {
		if vs, err = e.List(ctx); err != nil {
			return err
		}
		if len(vs) == 0 {
			fmt.Fprintln(a.Stdout, "No RAM disks mounted.")
			return nil
		}
	} else {
		for _, n := range pos {
			v, err := a.findDisk(ctx, n)
			if err != nil {
				return err
			}
			vs = append(vs, v)
		}
	}
	var errs []error
	for _, v := range vs {
		if err := a.eject(ctx, v, *force, !*noSave); err != nil {
			errs = append(errs, fmt.Errorf("eject %s: %w", v.Name, err))
			continue
		}
		fmt.Fprintf(a.Stdout, "Ejected %s\n", v.Name)
	}
	return errors.Join(errs...)
}

// ejectOne ejects one volume. It is the one place the CLI ejects, so steps
// that must happen first hook in here: a kept or mirrored disk is saved, and
// a failed save stops the eject so nothing is lost. A save refused for
// safety (an empty or foreign disk) holds nothing worth keeping over the
// saved copy: the eject goes on and says so.
func (a *App) ejectOne(ctx context.Context, v ramdisk.Volume, force bool) error {
	return a.eject(ctx, v, force, true)
}

// eject is ejectOne with the save made optional (eject --no-save).
func (a *App) eject(ctx context.Context, v ramdisk.Volume, force, save bool) error {
	e, err := a.Engine()
	if err != nil {
		return err
	}
	if save {
		if err := a.saveBeforeEject(ctx, v); err != nil {
			return err
		}
	}
	return e.Eject(ctx, v, force)
}

func (a *App) saveBeforeEject(ctx context.Context, v ramdisk.Volume) error {
	k, err := a.keeper()
	if err != nil {
		return nil // no data folder: nothing can be kept
	}
	if _, err := k.State(v.Name); err != nil {
		if errors.Is(err, mirror.ErrNotKept) {
			return nil
		}
		return fmt.Errorf("not ejected, its contents could not be saved: %w", err)
	}
	if dirty, err := k.Dirty(v); err == nil && !dirty {
		return nil
	}
	fn, done := a.contentsProgress(v.Name)
	r, err := k.Save(ctx, v, mirror.SaveOptions{Progress: fn})
	done()
	switch {
	case errors.Is(err, mirror.ErrRefused):
		fmt.Fprintf(a.Stderr, "rambar: %s: not saved before eject: %v\n", v.Name, err)
		return nil
	case err != nil:
		return fmt.Errorf("not ejected, its contents could not be saved (eject --no-save to drop them): %w", err)
	}
	fmt.Fprintln(a.Stdout, describeSave(v.Name, r))
	return nil
}
