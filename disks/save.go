package disks

import (
	"context"
	"errors"
	"fmt"

	"rambar/mirror"
	"rambar/ramdisk"
)

// EjectOptions tune one eject.
type EjectOptions struct {
	// Force unmounts a disk that is in use.
	Force bool
	// NoSave skips the save of a kept or mirrored disk: its unsaved changes are lost.
	NoSave bool
	// Progress, when set, hears how far the save before the eject has come.
	Progress ramdisk.ProgressFunc
}

// Ejected is what Eject did besides unmounting.
type Ejected struct {
	// Saved is set when the disk was saved first.
	Saved *mirror.Result
	// NotSaved is why a kept disk was not saved first although it had
	// changes: the save was refused for safety (an empty or foreign disk
	// holds nothing worth keeping over the saved copy), so the eject went on;
	// or (EjectOptions.Force) the save or write-back failed.
	NotSaved error
	// KeptIn, after a forced eject whose save or write-back failed, says
	// where the disk's last saved state is (a snapshot in its store).
	KeptIn string
}

// Eject ejects one disk under its lock. It is the one place RAMBar ejects,
// so what must happen first hooks in here: a kept or mirrored disk with
// unsaved changes is saved, and a failed save or write-back stops the eject
// so nothing is lost (o.Force ejects anyway and says where the last saved
// state is kept). A Mirror disk whose load did not finish is not written
// back and not ejected (mirror.ErrIncomplete) unless o.Force or o.NoSave.
// A Mirror disk's claim on its folder is released once it is ejected.
func (s *Service) Eject(ctx context.Context, v ramdisk.Volume, o EjectOptions) (Ejected, error) {
	release, err := s.lock(ctx, v.Name, "ejecting")
	if err != nil {
		return Ejected{}, err
	}
	defer release()
	var ej Ejected
	if !o.NoSave {
		if ej, err = s.saveBeforeEject(ctx, v, o.Progress); err != nil {
			if !o.Force {
				return ej, err
			}
			ej.NotSaved, ej.KeptIn = err, s.keptIn(v.Name)
		}
	}
	if err := s.Engine.Eject(ctx, v, o.Force); err != nil {
		return ej, err
	}
	if k, err := s.Keeper(); err == nil {
		k.Release(v.Name)
	}
	return ej, nil
}

// keptIn says where a disk's last saved state is.
func (s *Service) keptIn(name string) string {
	k, err := s.Keeper()
	if err != nil {
		return ""
	}
	st, err := k.State(name)
	if err != nil {
		return ""
	}
	snaps, _ := k.Snapshots(name)
	for _, sn := range snaps {
		if sn.Current {
			return fmt.Sprintf("snapshot %s in %s (rambar restore %s --snapshot %s after creating it again)", sn.ID, st.Backing, name, sn.ID)
		}
	}
	return st.Backing
}

func (s *Service) saveBeforeEject(ctx context.Context, v ramdisk.Volume, progress ramdisk.ProgressFunc) (Ejected, error) {
	k, err := s.Keeper()
	if err != nil {
		return Ejected{}, nil // no data folder: nothing can be kept
	}
	if _, err := k.State(v.Name); err != nil {
		if errors.Is(err, mirror.ErrNotKept) {
			return Ejected{}, nil
		}
		return Ejected{}, fmt.Errorf("not ejected, its contents could not be saved: %w", err)
	}
	if dirty, err := k.Dirty(v); err == nil && !dirty {
		return Ejected{}, nil
	}
	r, err := k.Save(ctx, v, mirror.SaveOptions{Progress: mirrorProgress(v.Name, progress)})
	switch {
	case errors.Is(err, mirror.ErrIncomplete):
		return Ejected{}, fmt.Errorf("not ejected: %w (--force ejects it without writing it back)", err)
	case errors.Is(err, mirror.ErrRefused):
		return Ejected{NotSaved: err}, nil
	case err != nil:
		return Ejected{}, fmt.Errorf("not ejected, its contents could not be saved (eject --no-save to drop them): %w", err)
	}
	return Ejected{Saved: &r}, nil
}

// SaveOptions tune one save.
type SaveOptions struct {
	// Force saves even an empty, unmounted or different disk over the saved copy.
	Force    bool
	Progress ramdisk.ProgressFunc
}

// Save saves a kept or mirrored disk now, under its lock. A disk that was
// ejected while the save waited for the lock gives ErrNotFound, so an
// empty mount point is never saved.
func (s *Service) Save(ctx context.Context, v ramdisk.Volume, o SaveOptions) (mirror.Result, error) {
	k, err := s.Keeper()
	if err != nil {
		return mirror.Result{}, err
	}
	release, err := s.lock(ctx, v.Name, "saving")
	if err != nil {
		return mirror.Result{}, err
	}
	defer release()
	if err := s.stillMounted(ctx, v); err != nil {
		return mirror.Result{}, err
	}
	return k.Save(ctx, v, mirror.SaveOptions{Force: o.Force, Progress: mirrorProgress(v.Name, o.Progress)})
}

// stillMounted checks that v is still the disk mounted under its name (same
// mount point and device), after waiting for the lock.
func (s *Service) stillMounted(ctx context.Context, v ramdisk.Volume) error {
	vs, err := s.Engine.List(ctx)
	if err != nil {
		return err
	}
	for _, m := range vs {
		if m.Name == v.Name && m.MountPoint == v.MountPoint && m.Device == v.Device {
			return nil
		}
	}
	return fmt.Errorf("save %s: %w: it was ejected or replaced meanwhile", v.Name, ramdisk.ErrNotFound)
}

// Kept lists the mounted disks whose contents are kept or mirrored.
func (s *Service) Kept(ctx context.Context) ([]ramdisk.Volume, error) {
	k, err := s.Keeper()
	if err != nil {
		return nil, err
	}
	vs, err := s.Engine.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []ramdisk.Volume
	for _, v := range vs {
		if _, err := k.State(v.Name); err == nil {
			out = append(out, v)
		}
	}
	return out, nil
}

// SaveAll saves every mounted kept or mirrored disk with unsaved changes
// (the menu: before sleep and at quit; due says which are due, nil: all).
// report, when set, hears each save's outcome; the error joins the failures.
func (s *Service) SaveAll(ctx context.Context, due func(mirror.State) bool, report func(name string, r mirror.Result, err error)) error {
	k, err := s.Keeper()
	if err != nil {
		return err
	}
	vs, err := s.Engine.List(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, v := range vs {
		st, err := k.State(v.Name)
		if errors.Is(err, mirror.ErrNotKept) || err == nil && due != nil && !due(st) {
			continue
		}
		if err == nil {
			if dirty, derr := k.Dirty(v); derr == nil && !dirty {
				continue
			}
			var r mirror.Result
			r, err = s.Save(ctx, v, SaveOptions{})
			if errors.Is(err, ramdisk.ErrNotFound) {
				continue // ejected meanwhile: nothing to save
			}
			if report != nil {
				report(v.Name, r, err)
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// RestoreOptions tune one restore.
type RestoreOptions struct {
	// Snapshot to restore; "" is the current one.
	Snapshot string
	// Force replaces the files on the disk, even unsaved ones.
	Force    bool
	Progress ramdisk.ProgressFunc
}

// Restore puts a saved state back on a mounted kept disk, under its lock.
func (s *Service) Restore(ctx context.Context, v ramdisk.Volume, o RestoreOptions) (mirror.Result, error) {
	k, err := s.Keeper()
	if err != nil {
		return mirror.Result{}, err
	}
	release, err := s.lock(ctx, v.Name, "restoring")
	if err != nil {
		return mirror.Result{}, err
	}
	defer release()
	return k.Restore(ctx, v, mirror.RestoreOptions{Snapshot: o.Snapshot, Force: o.Force, Progress: mirrorProgress(v.Name, o.Progress)})
}
