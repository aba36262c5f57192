package disks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
)

// Eject ejects one disk under its lock. It is the one place RAMBar ejects,
// so what must happen first hooks in here: a disk this data folder did not
// make (another data folder's or user's, or one it does not know) is
// refused with ErrNotOurs, naming whose it is, unless o.Force; a kept or
// mirrored disk with unsaved changes is saved, and a failed save or
// write-back stops the eject so nothing is lost (o.Force ejects anyway and
// says where the last saved state is kept). A disk whose restore or load
// did not finish is never saved, and not ejected (keeper.ErrIncomplete)
// unless o.Force or o.NoSave. A Mirror disk's claim on its folder is
// released once it is ejected.
func (s *Service) Eject(ctx context.Context, v ramdisk.Volume, o EjectOptions) (Ejected, error) {
	release, err := s.lock(ctx, v.Name, "ejecting")
	if err != nil {
		return Ejected{}, err
	}
	defer release()
	var ej Ejected
	if err := s.settleInPlace(ctx, v.Name); err != nil {
		return ej, err
	}
	place, inPlace := s.readInPlace(v.Name)
	if inPlace {
		if now, err := s.Find(ctx, v.Name); err == nil {
			v = now // where the disk is after a stopped RAMBar's steps were settled
		}
	}
	if !o.Force {
		if err := s.refuseForeign(v); err != nil {
			return ej, err
		}
	}
	// Every mount of it, checked gone after the eject.
	mounts := s.traceMounts(ctx, v)
	local := localOf(v) // read while it is mounted: its record goes with it
	s.Caches().SettleCut(v.Name, &v)
	incomplete := s.Incomplete(v)
	switch {
	case incomplete && !o.Force && !o.NoSave:
		return ej, s.incompleteErr("", v)
	case incomplete && !o.NoSave:
		ej.NotSaved = fmt.Errorf("%w: its restore did not finish; the saved copy is kept as it was", keeper.ErrIncomplete)
	case !o.NoSave:
		if ej, err = s.saveBeforeEject(ctx, v, o.Progress); err != nil {
			if !o.Force {
				return ej, err
			}
			ej.NotSaved, ej.KeptIn = err, s.keptIn(v.Name)
		}
	}
	if inPlace {
		if v, err = s.leaveFolder(ctx, v, place, o, incomplete, &ej); err != nil {
			return ej, err
		}
	}
	if err := s.Caches().ToFallback(v); err != nil { // a disk mounted without the fallback link
		s.recover(ctx, v, place, inPlace)
		return ej, fmt.Errorf("not ejected: %w", err)
	}
	mounts = append(mounts, s.traceMounts(ctx, v)...) // and as it is now, off its folder
	device := ""
	if dt, ok := s.Engine.(ramdisk.Detacher); ok && o.Force {
		device = dt.DeviceID(v)
	}
	if err := s.unmount(ctx, v, o.Force); err != nil {
		s.Caches().ToDisk(v, nil) // still mounted: the caches go back to it
		s.recover(ctx, v, place, inPlace)
		return ej, busyWithMounts(err, v)
	}
	ej.Detached = s.detachedAfter(ctx, v, device)
	var unhideErr error
	if inPlace {
		unhideErr = s.unhide(ctx, place)
	}
	// "Ejected" only when the mount table agrees: a mount of the disk left
	// (a bind of it, a cover the record did not name) keeps its records.
	if err := s.mountsLeft(ctx, v, mounts, place, inPlace); err != nil {
		if sm, ok := errors.AsType[*StillMountedError](err); !ok || !sm.DiskLeft {
			s.forgetEjected(v, local, incomplete)
		}
		return ej, err
	}
	if unhideErr != nil {
		ej.NotSaved = errors.Join(ej.NotSaved, fmt.Errorf("ejected, but removing the hidden copy of %s failed: %w", place.Folder, unhideErr))
	}
	s.forgetEjected(v, local, incomplete)
	return ej, nil
}

// leaveFolder takes a written-back disk in place off its folder for its
// eject: the folder's path shows the folder again (then the disk goes, then
// its hidden copy), and what was written through the folder's path between
// the save and now is written back too (ej.Saved): nothing reaches the disk
// that way now.
func (s *Service) leaveFolder(ctx context.Context, v ramdisk.Volume, place inPlaceRecord, o EjectOptions, incomplete bool, ej *Ejected) (ramdisk.Volume, error) {
	v, err := s.uncoverForEject(ctx, v, place, o.Force)
	if err != nil || o.NoSave || incomplete {
		return v, err
	}
	again, err := s.saveBeforeEject(ctx, v, o.Progress)
	if err != nil && !o.Force {
		s.recover(ctx, v, place, true)
		return v, err
	}
	if again.Saved != nil {
		ej.Saved = again.Saved
	}
	return v, nil
}

// unmount has the engine eject v. A disk held by this process alone (or by
// no process found) is held for moments (its change feed reading a burst of events, a save's
// hold being let go, under load): it is tried again, for at most 0.75 s,
// before it is called busy. A disk any other process holds is busy at once.
func (s *Service) unmount(ctx context.Context, v ramdisk.Volume, force bool) error {
	for try := 0; ; try++ {
		err := s.Engine.Eject(ctx, v, force)
		busy, ok := errors.AsType[*ramdisk.BusyError](err)
		if err == nil || try == 4 || !ok || slices.ContainsFunc(busy.Holders, func(h ramdisk.Holder) bool { return h.PID != os.Getpid() }) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(50<<try) * time.Millisecond):
		}
	}
}
