package disks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"

	"rambar/i18n"
	"rambar/keeper"
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
	Saved *keeper.Result
	// NotSaved is why a kept disk was not saved first although it had
	// changes: the save was refused for safety (an empty or foreign disk
	// holds nothing worth keeping over the saved copy), so the eject went on;
	// or (EjectOptions.Force) the save or write-back failed.
	NotSaved error
	// KeptIn, after a forced eject whose save or write-back failed, says
	// where the disk's last saved state is (a snapshot in its store).
	KeptIn string
	// Detached is set when a forced eject left the disk detached but its
	// memory still held by the processes it names (a lazy unmount).
	Detached *Detached
}

// keptIn says where a disk's last saved state is.
func (s *Service) keptIn(name string) string {
	k, st, err := s.keptState(name)
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
	k, st, err := s.keptState(v.Name)
	switch {
	case errors.Is(err, ErrNoData) || errors.Is(err, keeper.ErrNotKept):
		return Ejected{}, nil // no data folder, or not kept: nothing to save
	case err != nil:
		return Ejected{}, fmt.Errorf("not ejected, its contents could not be saved: %w", err)
	}
	if !k.Holds(v, st) {
		return Ejected{}, nil // made without keeping (a kept name without --keep): the saved contents wait
	}
	// The last save of what the disk holds walks it whole, feed or not: a
	// change no feed heard (a bug, a kernel's blind spot) is still saved
	// before the memory goes. One walk: the save walks and finds by
	// itself whether anything changed. A walk looks first only where the
	// save would do something else with no change: an incomplete disk is
	// never saved over its saved copy, and a disk never saved would be
	// saved empty.
	fw := s.following(v)
	if s.Incomplete(v) || st.LastSnapshot == "" {
		if dirty, err := k.Dirty(v); err == nil && !dirty {
			return Ejected{}, nil
		}
	}
	if fw != nil {
		fw.WalkNext()
	}
	r, err := s.saveKept(ctx, k, v, keeper.SaveOptions{Progress: mirrorProgress(v.Name, progress), Follow: fw})
	switch {
	case errors.Is(err, keeper.ErrIncomplete):
		return Ejected{}, fmt.Errorf("not ejected: %w (--force ejects it without writing it back)", err)
	case errors.Is(err, keeper.ErrRefused):
		return Ejected{NotSaved: err}, nil
	case errors.Is(err, keeper.ErrFolderMissing):
		return Ejected{}, fmt.Errorf("not ejected: %w; make the folder again to have the disk written back into it, "+
			"or eject with --force (its state stays in the store)", err)
	case err != nil:
		return Ejected{}, fmt.Errorf("not ejected, its contents could not be saved (eject --no-save to drop them): %w", err)
	}
	if r.Unchanged {
		return Ejected{}, nil // nothing changed since the last save: the walk says so
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
func (s *Service) Save(ctx context.Context, v ramdisk.Volume, o SaveOptions) (keeper.Result, error) {
	k, release, err := s.keeperLocked(ctx, v.Name, "saving")
	if err != nil {
		return keeper.Result{}, err
	}
	defer release()
	if err := s.settleInPlace(ctx, v.Name); err != nil {
		return keeper.Result{}, err
	}
	if err := s.stillMounted(ctx, v); err != nil {
		return keeper.Result{}, err
	}
	incomplete := s.Incomplete(v)
	if incomplete && !o.Force {
		return keeper.Result{}, s.incompleteErr("save", v)
	}
	// Where Autosave runs (the agent), a disk not followed yet (made by the
	// CLI moments ago) is followed first: this save's walk is its feed's
	// first, and the saves after it read only what changed.
	fw := s.following(v)
	if fw == nil && !incomplete {
		fw = s.followNow(k, v)
	}
	r, err := s.saveKept(ctx, k, v, keeper.SaveOptions{Force: o.Force, Progress: mirrorProgress(v.Name, o.Progress), Follow: fw})
	if err == nil && incomplete {
		s.restored(v.Name) // saved as it is, by request: it is the saved state now
	}
	return r, err
}

// savePinned saves v with its mount point held open, and checks at the
// end that what was saved is still the disk that was mounted at the start.
func savePinned(ctx context.Context, k *keeper.Keeper, v ramdisk.Volume, o keeper.SaveOptions) (keeper.Result, error) {
	p, err := pin(v)
	if err != nil {
		return keeper.Result{}, err
	}
	defer p.release()
	r, err := k.Save(ctx, v, o)
	if err == nil {
		st, _ := k.State(v.Name)
		err = p.check(v, st.ID)
	}
	return r, err
}

// pinned is a mounted disk held open while it is saved: an open directory
// on it makes a plain unmount by anyone else fail (EBUSY) until the save is
// done, and its device and marker, read at the start, are checked again at
// the end, so a save that read something else (a lazy unmount left the
// empty mount point) is reported, never taken for the disk.
type pinned struct {
	f      *os.File
	dev    uint64
	marker string
}

// pin opens v's mount point and reads its device and marker.
func pin(v ramdisk.Volume) (*pinned, error) {
	f, err := os.OpenFile(v.MountPoint, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("save %s: %w", v.Name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("save %s: fstat %s: %w", v.Name, v.MountPoint, err)
	}
	return &pinned{f: f, dev: uint64(st.Dev), marker: keeper.MarkerOf(v.MountPoint)}, nil
}

// check reports whether v's mount point is still the disk pinned at the
// start: same device, and the same marker, or the store's own (id: a save
// marks a disk it saves), or any when there was none.
func (p *pinned) check(v ramdisk.Volume, id string) error {
	var st unix.Stat_t
	err := unix.Stat(v.MountPoint, &st)
	if err == nil && uint64(st.Dev) == p.dev {
		if m := keeper.MarkerOf(v.MountPoint); p.marker == "" || m == p.marker || m == id {
			return nil
		}
	}
	return fmt.Errorf("save %s: %w: the disk was unmounted or replaced while it was saved, so this save may not be of it; "+
		"see 'rambar snapshots %s' and restore the one before if need be", v.Name, ramdisk.ErrNotFound, v.Name)
}

func (p *pinned) release() { p.f.Close() }

// stillMounted checks that v is still the disk mounted under its name (same
// mount point and device), after waiting for the lock.
func (s *Service) stillMounted(ctx context.Context, v ramdisk.Volume) error {
	vs, err := s.Engine.List(ctx)
	if err != nil {
		return err
	}
	for _, m := range vs {
		// A tmpfs made again at the same place has the same name, mount
		// point and device ("rambar"): only its identity tells it apart.
		if m.Name == v.Name && m.MountPoint == v.MountPoint && m.Device == v.Device &&
			(m.Identity == "" || v.Identity == "" || m.Identity == v.Identity) {
			return nil
		}
	}
	return i18n.Errorf("save %s: %w: it was ejected or replaced meanwhile", v.Name, ramdisk.ErrNotFound)
}

// Kept lists the mounted disks whose contents are kept or mirrored.
func (s *Service) Kept(ctx context.Context) ([]ramdisk.Volume, error) {
	k, vs, err := s.mountedKeeper(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(vs, func(v ramdisk.Volume) bool {
		_, err := k.State(v.Name)
		return err != nil
	}), nil
}

// SaveAll saves every mounted kept or mirrored disk with unsaved changes
// (the menu: before sleep and at quit; due says which are due, nil: all).
// report, when set, hears each save's outcome; the error joins the failures.
func (s *Service) SaveAll(ctx context.Context, due func(keeper.State) bool, report func(name string, r keeper.Result, err error)) error {
	k, vs, err := s.mountedKeeper(ctx)
	if err != nil {
		return err
	}
	return s.saveAllOf(ctx, k, vs, due, report)
}

// mountedKeeper is the Keeper and the disks mounted now.
func (s *Service) mountedKeeper(ctx context.Context) (*keeper.Keeper, []ramdisk.Volume, error) {
	k, err := s.Keeper()
	if err != nil {
		return nil, nil, err
	}
	vs, err := s.Engine.List(ctx)
	return k, vs, err
}

// saveAllOf is SaveAll of the disks vs, listed by the caller.
func (s *Service) saveAllOf(ctx context.Context, k *keeper.Keeper, vs []ramdisk.Volume, due func(keeper.State) bool, report func(name string, r keeper.Result, err error)) error {
	var errs []error
	for _, v := range vs {
		st, err := k.State(v.Name)
		switch {
		case errors.Is(err, keeper.ErrNotKept) || err == nil && (!k.Holds(v, st) && s.InPlace(ctx, v) == "" || due != nil && !due(st)):
			continue // not kept, made without keeping, or not due
		case err != nil:
			errs = append(errs, err)
			continue
		case s.Incomplete(v):
			continue // never saved over its whole saved copy; the menu says so
		}
		if dirty, _, derr := s.dirty(k, v); derr == nil && !dirty {
			continue
		}
		r, err := s.Save(ctx, v, SaveOptions{})
		if errors.Is(err, ramdisk.ErrNotFound) {
			continue // ejected meanwhile: nothing to save
		}
		if report != nil {
			report(v.Name, r, err)
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
func (s *Service) Restore(ctx context.Context, v ramdisk.Volume, o RestoreOptions) (keeper.Result, error) {
	k, release, err := s.keeperLocked(ctx, v.Name, "restoring")
	if err != nil {
		return keeper.Result{}, err
	}
	defer release()
	r, done := s.alreadyHolds(k, v, o.Snapshot)
	if !done || o.Force {
		before := k.Filling(v.Name)
		partial := s.Incomplete(v) // what it holds is never saved, not even before the restore
		if err := s.markRestoring(v.Name, v.MountPoint); err != nil {
			return keeper.Result{}, err
		}
		r, err = k.Restore(ctx, v, keeper.RestoreOptions{Snapshot: o.Snapshot, Force: o.Force, Progress: mirrorProgress(v.Name, o.Progress),
			Incomplete: partial})
		if err != nil {
			if !before && untouched(err) {
				s.restored(v.Name) // refused before anything was written
			}
			return r, err
		}
		s.restored(v.Name)
	}
	// Restored, or held already: the folders it was made with are made again.
	if opts, ok := s.VolumeOptionsOf(v); ok {
		if err := keeper.MakeFolders(v.MountPoint, opts.Folders); err != nil {
			return r, fmt.Errorf("restored %s, but: %w", v.Name, err)
		}
	}
	return r, nil
}

// alreadyHolds reports a restore with nothing to do: the disk holds the
// snapshot asked for ("" the newest) exactly, so no --force is needed to
// replace its files with themselves, and without it they are left as they
// are (with --force they are replaced all the same). A disk whose restore
// did not finish never does.
func (s *Service) alreadyHolds(k *keeper.Keeper, v ramdisk.Volume, snapshot string) (keeper.Result, bool) {
	if s.Incomplete(v) {
		return keeper.Result{}, false
	}
	snaps, err := k.Snapshots(v.Name)
	i := slices.IndexFunc(snaps, func(sn keeper.Snapshot) bool { return sn.ID == snapshot || snapshot == "" && sn.Current })
	if err != nil || i < 0 {
		return keeper.Result{}, false
	}
	if same, err := k.Matches(v, snaps[i].ID); err != nil || !same {
		return keeper.Result{}, false
	}
	var r keeper.Result
	r.Snapshot, r.Unchanged, r.Files, r.Bytes = snaps[i].ID, true, snaps[i].Files, snaps[i].Bytes
	return r, true
}

// untouched reports whether a failed restore changed nothing on the disk:
// it failed before writing (keeper.ErrNothingWritten: its snapshot could
// not be read, it would not fit, the disk holds files), or was refused. A
// disk that filled up part way is not untouched.
func untouched(err error) bool {
	return errors.Is(err, keeper.ErrNothingWritten) || errors.Is(err, keeper.ErrRefused) ||
		errors.Is(err, ramdisk.ErrNotFound) || errors.Is(err, keeper.ErrNotKept)
}
