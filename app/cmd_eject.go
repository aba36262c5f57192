package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "eject", Args: "NAME...|--all [--force]", Summary: "eject RAM disks and free their memory", Order: 30, Run: runEject})
}

func runEject(ctx context.Context, a *App, args []string) error {
	fl := flag.NewFlagSet("eject", flag.ContinueOnError)
	all := fl.Bool("all", false, "eject every RAM disk")
	force := fl.Bool("force", false, "eject even if files are open on it")
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
		if err := a.ejectOne(ctx, v, *force); err != nil {
			errs = append(errs, fmt.Errorf("eject %s: %w", v.Name, err))
			continue
		}
		fmt.Fprintf(a.Stdout, "Ejected %s\n", v.Name)
	}
	return errors.Join(errs...)
}

// ejectOne ejects one volume. It is the one place the CLI ejects, so steps
// that must happen first (saving kept contents) hook in here.
func (a *App) ejectOne(ctx context.Context, v ramdisk.Volume, force bool) error {
	e, err := a.Engine()
	if err != nil {
		return err
	}
	return e.Eject(ctx, v, force)
}
