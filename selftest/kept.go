package selftest

import (
	"context"
	"fmt"

	"rambar/disks"
	"rambar/keeper"
	"rambar/ramdisk"
)

// keptSize is the kept disk's size; keptLarge the large file on it.
const (
	keptSize  = 64 * ramdisk.MiB
	keptLarge = 2 * ramdisk.MiB
)

// Kept makes a kept disk in this run's private store, writes the test
// files, saves it, ejects it (the use case saves first), makes it again
// (which restores it) and compares every path, modes included:
// kept.roundtrip. The disk made again stays mounted (KeptDisk) for the
// session guard's check.
func (r *Runner) Kept(ctx context.Context) Check {
	const name = "kept.roundtrip"
	return Timed(func() Check {
		svc := r.Service()
		diskName, err := r.newDisk("kept")
		if err != nil {
			return Failf(name, "%v", err)
		}
		req := disks.CreateRequest{
			Input:    ramdisk.Input{Name: diskName, Hidden: r.hidden(), Force: true},
			Exact:    keptSize,
			Contents: keeper.Options{Mode: ramdisk.Keep},
		}
		r.logf("making a kept disk, saving it, ejecting it and making it again")
		first, err := svc.Create(ctx, req)
		if err != nil {
			return Failf(name, "could not make the kept disk: %v", err)
		}
		r.made = append(r.made, first.Volume)
		if _, _, err := writeTree(first.Volume.MountPoint, int64(keptLarge), 7); err != nil {
			return Failf(name, "%v", err)
		}
		before, err := digestTree(first.Volume.MountPoint)
		if err != nil {
			return Failf(name, "%v", err)
		}
		saved, err := svc.Save(ctx, first.Volume, disks.SaveOptions{})
		if err != nil {
			return Failf(name, "save: %v", err)
		}
		if _, err := svc.Eject(ctx, first.Volume, disks.EjectOptions{}); err != nil {
			return Failf(name, "eject after the save: %v", err)
		}
		r.unmade(first.Volume)
		if mounted, err := r.still(ctx, first.Volume.Name); err != nil || mounted {
			return Failf(name, "still mounted after the eject (%v)", err)
		}
		again, err := svc.Create(ctx, req)
		if err != nil {
			return Failf(name, "make it again: %v", err)
		}
		r.made = append(r.made, again.Volume)
		r.kept = &again.Volume
		if diff := sameTree(again.Volume.MountPoint, before); diff != "" {
			return Failf(name, "made again, it differs from what was saved: %s", diff)
		}
		c := Passf(name, "%d paths saved (%d files, %s), ejected, made again and found equal", len(before), saved.Files, ramdisk.Size(saved.Bytes).Short())
		c.Rule = "a kept disk saved, ejected and made again holds every path as it was: kind, permissions, size, SHA-256, link target"
		c.Data = map[string]any{"paths": len(before), "saved": saved, "loaded": again.Loaded}
		return c
	})
}

// GuardSaved checks, after the session guard was asked to save, that the
// kept disk has nothing unsaved (its contents compared with the store).
func (r *Runner) GuardSaved(ctx context.Context) error {
	if r.kept == nil {
		return fmt.Errorf("no kept disk (kept.roundtrip failed)")
	}
	k, err := r.Service().Keeper()
	if err != nil {
		return err
	}
	dirty, err := k.Dirty(*r.kept)
	if err != nil {
		return fmt.Errorf("compare the kept disk with its store: %w", err)
	}
	if dirty {
		return fmt.Errorf("the kept disk still has unsaved changes")
	}
	return nil
}
