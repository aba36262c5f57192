package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"rambar/mirror"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "eject", Args: "NAME...|--all [--force] [--no-save]", Summary: "eject RAM disks and free their memory (kept and mirrored disks are saved first)", Order: 30, Run: runEject})
}

func runEject(ctx context.Context, a *App, args []string) error {
	fl := flag.NewFlagSet("eject", flag.ContinueOnError)
	all := fl.Bool("all", false, "eject every RAM disk")
	force := fl.Bool("force", false, "eject even if files are open on it")
	noSave := fl.Bool("no-save", false, "do not save kept or mirrored disks first: their unsaved changes are lost")
	pos, err := parseFlags(fl, args)
	if err != nil {
		return err
	}
	if *all == (len(pos) > 0) {
		return usagef("usage: rambar eject %s", commands["eject"].Args)
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
