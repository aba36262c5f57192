package disks

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"rambar/internal/diskid"
	"rambar/keeper"
	"rambar/ramdisk"
	"rambar/volicon"
)

// CreateRequest is a disk to make.
type CreateRequest struct {
	// Input is the disk as typed: name, size ("4G", "1.5GiB", "25%" of this
	// machine's memory), file system, hidden, force.
	ramdisk.Input
	// Exact, when set, is the size in bytes, and Input.Size is not read
	// (the menu's ready sizes).
	Exact ramdisk.Size
	// Preset is the preset the disk is made from, nil for a one-off disk.
	// Its contents mode is used when Contents is not set.
	Preset *ramdisk.Preset
	// Contents says how the disk's contents are kept (create --keep/--mirror).
	Contents keeper.Options
	// Planned, when set, is told the plan before the disk is made.
	Planned func(ramdisk.Plan)
	// Progress, when set, hears how far filling the disk has come.
	Progress ramdisk.ProgressFunc
}

// Created is a disk made by Create.
type Created struct {
	Plan   ramdisk.Plan
	Volume ramdisk.Volume
	// Contents is how the disk's contents are kept; Mode is "" for a disk
	// whose contents die with it.
	Contents keeper.State
	// Loaded is what filling a kept or mirrored disk put on it.
	Loaded keeper.Result
	// Reclaimed, when set, is the staging copy of a reclaim that was stopped
	// while the disk was gone: its contents were put back instead (they are
	// newer than any save), verified, and the copy removed.
	Reclaimed string

	kept bool // its contents are kept or mirrored (recordMade notes it so)
}

// Create is the one place a RAM disk is made, for `create`, `up`, `preset
// mount` and the menu. Under the disk's lock it checks the name and size,
// gathers the machine's facts, plans (refusing what memory cannot hold
// unless r.Force), tells r.Planned, has the engine make the disk, and fills
// a kept or mirrored disk from its saved copy. A disk that cannot be filled
// is ejected again; the saved copy is never touched.
func (s *Service) Create(ctx context.Context, r CreateRequest) (Created, error) {
	if err := ramdisk.ValidateName(r.Name); err != nil {
		return Created{}, err
	}
	if err := checkNotTryName(r.Name); err != nil {
		return Created{}, err
	}
	// Check the size's spelling before touching the engine, so bad input is
	// refused the same way everywhere; a percentage is resolved once memory is known.
	if r.Exact == 0 {
		if err := ramdisk.CheckInput(r.Input); err != nil {
			return Created{}, err
		}
	}
	// Its contents are kept as asked, else as its preset says. Options that
	// cannot work together are refused before anything is made, settled or
	// recorded.
	contents := r.Contents
	if contents.Mode == ramdisk.Discard && r.Preset != nil {
		contents = keeper.OptionsFromPreset(*r.Preset)
	}
	choices := ramdisk.Choices{Contents: contents.Mode, MirrorPath: contents.MirrorPath, InPlace: contents.InPlace, MountPoint: r.Options.MountPoint}
	if err := ramdisk.CheckChoices(choices); err != nil {
		return Created{}, contentsError{fmt.Errorf("create %s: %w", r.Name, err)}
	}
	release, err := s.lock(ctx, r.Name, "creating")
	if err != nil {
		return Created{}, err
	}
	defer release()
	if err := s.settleInPlace(ctx, r.Name); err != nil {
		return Created{}, err
	}
	f, err := s.Facts(ctx)
	if err != nil {
		return Created{}, err
	}
	if err := s.Caches().MountPointFor(r.Name, r.Preset, &r.Options, f.Caps); err != nil {
		return Created{}, err
	}
	var c Created
	if r.Exact > 0 {
		c.Plan, err = ramdisk.NewPlan(ramdisk.Request{Name: r.Name, Size: r.Exact, FS: r.FS, Hidden: r.Hidden, Force: r.Force, Options: r.Options}, f)
	} else {
		c.Plan, err = ramdisk.PlanInput(r.Input, f)
	}
	if err != nil {
		return Created{}, s.existsHint(err, r.Name, f.Mounted)
	}
	s.Caches().WithFallback(&c.Plan, f.Caps)
	// What can still refuse the disk is checked before the plan is told:
	// its mount point, and how its contents are kept (a mirror folder that
	// cannot be mirrored, one that would hold the disk itself).
	if pc, ok := s.Engine.(ramdisk.Prechecker); ok {
		if err := pc.Precheck(ctx, c.Plan); err != nil {
			s.Caches().Away(context.WithoutCancel(ctx), r.Name) // as when Create refuses it
			return Created{}, fmt.Errorf("create %s: %w", r.Name, err)
		}
	}
	contents.MountPoint = c.Plan.MountPoint // a mirror folder inside the disk is refused
	c.kept = contents.Mode != ramdisk.Discard
	// Refused before the plan is told (kept work a mirror would bury), and
	// what the stored settings mean for this disk, in the plan's notes.
	if k, err := s.Keeper(); err == nil {
		notes, err := k.SetupNotes(r.Name, contents)
		if err != nil {
			return Created{}, fmt.Errorf("create %s: %w", r.Name, err)
		}
		c.Plan.Notes = append(c.Plan.Notes, notes...)
	}
	undo, err := s.setupContents(r.Name, contents)
	if err != nil {
		return Created{}, err
	}
	if r.Planned != nil {
		r.Planned(c.Plan)
	}
	if k, err := s.Keeper(); err == nil {
		// Its contents wait from a reclaim that was stopped: they go back.
		if st, err := k.StoppedWhileGone(r.Name); err != nil {
			return Created{}, fmt.Errorf("create %s: %w", r.Name, err)
		} else if st != nil {
			return s.finishFromStaging(ctx, k, c, st, r.Progress)
		}
	}
	return s.makeAndFill(ctx, c, contents, undo, r.Progress)
}

// makeAndFill has the engine make the planned disk and fills a kept or
// mirrored one, noting it incomplete until the fill has finished; undo
// forgets how its contents are kept if it cannot be made.
func (s *Service) makeAndFill(ctx context.Context, c Created, contents keeper.Options, undo func(), progress ramdisk.ProgressFunc) (Created, error) {
	name := c.Plan.Name
	var err error
	if c.kept {
		// From here until the load has finished, the disk is incomplete.
		if err := s.markRestoring(name, c.Plan.MountPoint); err != nil {
			undo()
			return c, err
		}
	}
	var place inPlaceRecord
	if contents.InPlace {
		// The folder's hidden copy is made before the disk: the load reads
		// the folder there, and the write-back writes it there.
		if place, err = s.hideFolder(ctx, name, filepath.Clean(contents.MirrorPath)); err != nil {
			undo()
			s.restored(name)
			return c, fmt.Errorf("create %s in place: %w", name, err)
		}
	}
	if c.Volume, err = s.Engine.Create(ctx, c.Plan); err != nil {
		s.Caches().Away(context.WithoutCancel(ctx), name)
		s.unplace(ctx, place)
		undo()
		if c.kept {
			s.restored(name)
		}
		return c, fmt.Errorf("create %s: %w", name, err)
	}
	s.recordMade(&c)
	if !c.kept {
		s.madeExtras(&c)
		return c, nil
	}
	if c.Volume.MountPoint != c.Plan.MountPoint {
		if err := s.markRestoring(name, c.Volume.MountPoint); err != nil {
			// Never fill a disk that could not be noted as being filled.
			s.Engine.Eject(context.WithoutCancel(ctx), c.Volume, false)
			s.unplace(ctx, place)
			undo()
			s.restored(name)
			return c, err
		}
	}
	if c.Contents, c.Loaded, err = s.load(ctx, c.Volume, !contents.InPlace, progress); err != nil {
		s.unplace(ctx, place)
		return c, err
	}
	s.restored(name)
	if contents.InPlace {
		if c.Volume, err = s.placeLoaded(ctx, c.Volume, place); err != nil {
			return c, err
		}
	}
	s.madeExtras(&c) // after the load: its folders are made again
	// Work kept only in an old snapshot (keeper/unwritten.go): the menu
	// notifies it, the CLI prints it (printLoaded).
	if n := c.Loaded.Safety; n != nil {
		c.Volume.Notes = append(c.Volume.Notes, ramdisk.Warn(n.Describe(name, c.Contents.MirrorPath)))
	}
	return c, nil
}

// unplace removes the hidden copy of a disk in place that was not made (r
// is its record, zero for a disk not in place: place is set only then).
func (s *Service) unplace(ctx context.Context, r inPlaceRecord) {
	if r.Name != "" {
		s.unhide(context.WithoutCancel(ctx), r)
	}
}

// placeLoaded mounts a loaded disk over its folder. If that fails the disk
// is ejected again (it holds what the folder holds, just loaded) and the
// folder is left as it was.
func (s *Service) placeLoaded(ctx context.Context, v ramdisk.Volume, r inPlaceRecord) (ramdisk.Volume, error) {
	placed, err := s.cover(ctx, v, r)
	if err == nil {
		return placed, nil
	}
	ctx = context.WithoutCancel(ctx)
	if ip, ierr := s.inPlacer(); ierr == nil {
		placed, _ = ip.Uncover(ctx, placed, r.Folder, true)
	}
	if ejErr := s.Engine.Eject(ctx, placed, true); ejErr != nil {
		return placed, fmt.Errorf("create %s: mounting it over %s failed: %w (and ejecting it again failed: %v)", v.Name, r.Folder, err, ejErr)
	}
	s.unhide(ctx, r)
	if k, kerr := s.Keeper(); kerr == nil {
		k.Release(v.Name)
	}
	return placed, fmt.Errorf("create %s: mounting it over %s failed, the disk was ejected and the folder is untouched: %w", v.Name, r.Folder, err)
}

// recordMade notes the new disk as this data folder's (noteMade) and keeps
// its extras (recordOptions), so a restore and a reclaim know them; what
// fails is a note on the volume.
func (s *Service) recordMade(c *Created) {
	if err := s.noteMade(c.Volume, c.kept, diskid.KindPlain); err != nil {
		c.Volume.Notes = append(c.Volume.Notes, ramdisk.Plain(err.Error()))
	}
	if err := s.recordOptions(c.Plan.Name, c.Volume.MountPoint, c.Plan.Options); err != nil {
		c.Volume.Notes = append(c.Volume.Notes, ramdisk.Plain(err.Error()))
	}
}

// madeExtras does what the new, filled disk's extras ask (its folders, its
// icon) and points its caches back at it. What fails is a note on the
// volume, not an error: the disk is made and usable.
func (s *Service) madeExtras(c *Created) {
	v, o := &c.Volume, c.Plan.Options
	if err := keeper.MakeFolders(v.MountPoint, o.Folders); err != nil {
		v.Notes = append(v.Notes, ramdisk.Plain(err.Error()))
	}
	if o.Icon != "" {
		notes, err := volicon.Set(v.MountPoint, o.Icon)
		if err != nil {
			notes = append(notes, ramdisk.Plain(err.Error()))
		}
		v.Notes = append(v.Notes, notes...)
	}
	v.Notes = append(v.Notes, s.Caches().ToDisk(*v, &c.Plan)...)
}

// existsHint adds to "already mounted" the way on when that disk's restore
// did not finish: eject it with force (its saved copy is kept), then create.
func (s *Service) existsHint(err error, name string, mounted []ramdisk.Volume) error {
	if !errors.Is(err, ramdisk.ErrExists) {
		return err
	}
	for _, v := range mounted {
		if s.Engine.Caps().SameName(v.Name, name) && s.Incomplete(v) {
			return fmt.Errorf("%w; its restore did not finish: 'rambar eject %s --force' drops it (the saved copy is kept), then create it again", err, v.Name)
		}
	}
	return err
}

// ErrContents marks a contents option the keeper refused (a relative or
// file mirror folder, a negative count): bad input.
var ErrContents = errors.New("contents options refused")

type contentsError struct{ error }

func (e contentsError) Is(target error) bool { return target == ErrContents }
func (e contentsError) Unwrap() error        { return e.error }

// setupContents records how the disk's contents are kept; undo forgets it
// again if the disk could not be made and nothing was kept before.
func (s *Service) setupContents(name string, o keeper.Options) (undo func(), err error) {
	if o.Mode == ramdisk.Discard {
		return func() {}, nil
	}
	k, err := s.Keeper()
	if err != nil {
		return nil, err
	}
	_, before := k.State(name)
	if _, err := k.Setup(name, o); err != nil {
		return nil, contentsError{err}
	}
	return func() {
		if errors.Is(before, keeper.ErrNotKept) {
			k.Forget(name)
		}
	}, nil
}

// load fills a new kept or mirrored disk. If that fails the disk is ejected
// again (it is empty; the saved copy is untouched) and the error says so.
// Where Autosave runs (the agent, the menu-bar app) and follow is set (a
// disk that stays where it is made), a Mirror disk is followed before its
// first snapshot's walk, which is then its feed's first: the next save
// reads only what changed.
func (s *Service) load(ctx context.Context, v ramdisk.Volume, follow bool, progress ramdisk.ProgressFunc) (keeper.State, keeper.Result, error) {
	k, err := s.Keeper()
	if err != nil {
		return keeper.State{}, keeper.Result{}, err
	}
	var fw func() *keeper.Following
	if follow {
		fw = func() *keeper.Following { return s.followNow(k, v) }
	}
	r, err := k.LoadFollowed(ctx, v, mirrorProgress(v.Name, progress), fw)
	if err != nil {
		// Even when ctx was cancelled (Ctrl-C): the half-filled disk goes.
		if ejErr := s.Engine.Eject(context.WithoutCancel(ctx), v, false); ejErr != nil {
			return keeper.State{}, r, fmt.Errorf("create %s: loading contents failed: %w (and ejecting it again failed: %v)", v.Name, err, ejErr)
		}
		s.restored(v.Name) // the partial disk is gone
		return keeper.State{}, r, fmt.Errorf("create %s: loading contents failed, the disk was ejected and the saved copy is untouched: %w", v.Name, err)
	}
	st, err := k.State(v.Name)
	return st, r, err
}
