package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"rambar/disks"
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
	svc, err := a.service()
	if err != nil {
		return err
	}
	var vs []ramdisk.Volume
	if *all {
		if vs, err = svc.Engine.List(ctx); err != nil {
			return err
		}
		if len(vs) == 0 {
			fmt.Fprintln(a.Stdout, "No RAM disks mounted.")
			return nil
		}
	} else {
		for _, n := range pos {
			v, err := svc.Find(ctx, n)
			if err != nil {
				return err
			}
			vs = append(vs, v)
		}
	}
	var errs []error
	for _, v := range vs {
		if err := a.eject(ctx, svc, v, disks.EjectOptions{Force: *force, NoSave: *noSave}); err != nil {
			errs = append(errs, contentsErr(fmt.Errorf("eject %s: %w", v.Name, err)))
			continue
		}
		fmt.Fprintf(a.Stdout, "Ejected %s\n", v.Name)
	}
	return errors.Join(errs...)
}

// eject ejects one disk through the use case (saving a kept disk first) and
// says what the save did: a save refused for safety (an empty or foreign
// disk) holds nothing worth keeping over the saved copy, so the eject went
// on, and says so.
func (a *App) eject(ctx context.Context, svc *disks.Service, v ramdisk.Volume, o disks.EjectOptions) error {
	var done func()
	o.Progress, done = a.contentsProgress()
	ej, err := svc.Eject(ctx, v, o)
	done()
	if ej.NotSaved != nil {
		fmt.Fprintf(a.Stderr, "rambar: %s: not saved before eject: %v\n", v.Name, ej.NotSaved)
	}
	if ej.KeptIn != "" && err == nil {
		fmt.Fprintf(a.Stderr, "rambar: %s: ejected anyway (--force); its last saved state is %s\n", v.Name, ej.KeptIn)
	}
	if ej.Saved != nil {
		fmt.Fprintln(a.Stdout, describeSave(v.Name, *ej.Saved))
	}
	return err
}
