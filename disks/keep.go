package disks

import (
	"context"
	"errors"
	"fmt"

	"rambar/i18n"
	"rambar/internal/diskid"
	"rambar/keeper"
	"rambar/ramdisk"
)

// KeepRequest turns a mounted plain disk into a kept or mirrored one.
type KeepRequest struct {
	// Name is the mounted disk (a name or its mount point).
	Name string
	// Contents is how its contents are kept from now on: ramdisk.Keep, or
	// ramdisk.Mirror with an empty (or, with CreateFolder, missing) folder.
	Contents keeper.Options
	// Force keeps it although its name has saved contents of an earlier
	// disk (this disk's become their newest snapshot), or although another
	// data folder made it.
	Force bool
	// Progress, when set, hears how far the first save has come.
	Progress ramdisk.ProgressFunc
}

// ErrTryDisk: a `rambar try` disk is thrown away with its command by
// design; it is never kept.
var ErrTryDisk = i18n.New("it is a try disk, thrown away when its command ends")

// Keep is the one place a mounted disk made without --keep or --mirror
// starts being kept (`rambar keep`, the menu's Keep Contents and Mirror to
// Folder…), without ejecting it: under the disk's lock the keeper takes it
// on (keeper.Keeper.TakeOn says what it refuses), then it is saved at once:
// its contents are a snapshot, and a Mirror disk's are in its folder. A
// first save that fails leaves the disk kept (the next save, autosave or
// eject tries again) and says so.
func (s *Service) Keep(ctx context.Context, r KeepRequest) (keeper.Result, error) {
	if r.Contents.Mode != ramdisk.Keep && r.Contents.Mode != ramdisk.Mirror {
		return keeper.Result{}, contentsError{fmt.Errorf("keep %s: say how its contents are kept (keep or mirror)", r.Name)}
	}
	k, v, release, err := s.findLocked(ctx, r.Name, "keeping")
	if err != nil {
		return keeper.Result{}, err
	}
	defer release()
	if err := s.stillMounted(ctx, v); err != nil {
		return keeper.Result{}, err
	}
	if s.Incomplete(v) {
		return keeper.Result{}, s.incompleteErr("keep", v)
	}
	if rec, ok := k.Known(v); ok && rec.Kind == diskid.KindTry {
		return keeper.Result{}, i18n.Errorf("keep %s: %w; copy what you need out of it before its command ends", v.Name, ErrTryDisk)
	}
	if whose := s.Whose(v); whose.Text != "" && !r.Force {
		return keeper.Result{}, notOursError{fmt.Sprintf("%s %s; keeping it here would save it into this data folder: keep it as its maker, or add --force to keep it here",
			v.Name, whose)}
	}
	if _, err := k.TakeOn(v, r.Contents, r.Force); err != nil {
		if errors.Is(err, keeper.ErrAlreadyKept) || errors.Is(err, keeper.ErrRefused) {
			return keeper.Result{}, err
		}
		return keeper.Result{}, contentsError{err}
	}
	// Followed first where Autosave runs (the agent): this save is the
	// walk its feed needs, and the continuous saves go on from it.
	fw := s.followNow(k, v)
	res, err := savePinned(ctx, k, v, keeper.SaveOptions{Force: r.Force, Progress: mirrorProgress(v.Name, r.Progress), Follow: fw})
	if err != nil {
		return res, fmt.Errorf("%s is kept now, but its first save failed ('rambar save %s' tries again; eject saves it too): %w",
			v.Name, quoteArg(v.Name), err)
	}
	return res, nil
}

// Adjust changes how a mounted kept or mirrored disk is saved from now on
// (`rambar keep NAME --save-every …|--snapshots N` on a kept disk): its
// snapshot count and autosave, under the disk's lock, without a save. A
// disk that is not kept is refused with keeper.ErrNotKept; a preset of the
// same name keeps its own settings for its next mount (PresetDiffers says
// so).
func (s *Service) Adjust(ctx context.Context, name string, o keeper.Options) (keeper.Adjusted, error) {
	k, v, release, err := s.findLocked(ctx, name, "changing its settings")
	if err != nil {
		return keeper.Adjusted{}, err
	}
	defer release()
	st, err := k.State(v.Name)
	if err != nil || !k.Holds(v, st) {
		return keeper.Adjusted{}, i18n.Errorf("%s: %w: 'rambar keep %s' keeps it first", v.Name, keeper.ErrNotKept, quoteArg(v.Name))
	}
	adj, err := k.Adjust(v.Name, o)
	if err == nil {
		s.kickFollowing(v.Name) // set to save continuously: saved at once, not at its feed's first change
	}
	return adj, err
}

// PresetDiffers says, when a preset named name would mount the disk with
// other saving settings than st, how the preset saves it (its snapshots
// and autosave; keeper.SavingWords says them), and whether one differs
// (false when none does or there is no such preset).
func (s *Service) PresetDiffers(name string, st keeper.State) (keeper.State, bool) {
	set, err := s.settings()
	if err != nil {
		return keeper.State{}, false
	}
	for _, p := range set.Presets {
		if p.Name != name || p.Contents == ramdisk.Discard {
			continue
		}
		o := keeper.OptionsFromPreset(p)
		ps := keeper.State{Snapshots: o.Snapshots}
		ps.SetSaveEvery(o.SaveEvery) // the keeper's rule, as a mount of the preset sets it
		if ps.Snapshots != st.Snapshots || ps.Continuous != st.Continuous || ps.SaveEvery != st.SaveEvery {
			return ps, true
		}
	}
	return keeper.State{}, false
}
