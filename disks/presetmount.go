package disks

import (
	"context"
	"errors"
	"fmt"

	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

// MountPreset makes the disk preset p describes, through Create. A disk of
// that name already mounted gives ErrExists, with the mounted disk in
// Created.Volume.
func (s *Service) MountPreset(ctx context.Context, p ramdisk.Preset, progress ramdisk.ProgressFunc) (Created, error) {
	return s.mountPreset(ctx, p, false, progress)
}

// mountPreset is MountPreset; force makes a disk the memory check refuses.
func (s *Service) mountPreset(ctx context.Context, p ramdisk.Preset, force bool, progress ramdisk.ProgressFunc) (Created, error) {
	if err := ramdisk.CheckPresetPaths(p); err != nil {
		return Created{}, err
	}
	if v, err := s.Find(ctx, p.Name); err == nil {
		if s.Incomplete(v) {
			return Created{Volume: v}, fmt.Errorf("preset %s: %w at %s, but its restore did not finish: eject it with 'rambar eject %s --force' (its saved copy is kept) and mount it again",
				p.Name, ramdisk.ErrExists, v.MountPoint, v.Name)
		}
		return Created{Volume: v}, i18n.Errorf("preset %s: %w at %s", p.Name, ramdisk.ErrExists, v.MountPoint)
	} else if !errors.Is(err, ramdisk.ErrNotFound) {
		return Created{}, err
	}
	in := p.Input()
	in.Force = in.Force || force
	c, err := s.Create(ctx, CreateRequest{Input: in, Preset: &p, Progress: progress})
	if err == nil {
		c.Volume.Notes = append(c.Volume.Notes, s.Caches().ForPreset(ctx, p)...)
	}
	if errors.Is(err, keeper.ErrFolderMissing) {
		err = fmt.Errorf("%w; make it, or have the preset make it: rambar preset edit %s --mirror %s --create-folder", err, p.Name, p.MirrorPath)
	}
	// A stored preset's refused combination (one an older RAMBar accepted,
	// or a hand-edited settings file) says how to change it.
	if _, ok := errors.AsType[*ramdisk.ClashError](err); ok {
		err = fmt.Errorf("%w; change the preset: rambar preset edit %s with the options it needs (rambar help preset edit lists them)", err, quoteArg(p.Name))
	}
	return c, err
}

// MountPresetNamed mounts the preset of that name from the settings; an
// unknown name gives ErrNoPreset (which is also ErrNotFound).
func (s *Service) MountPresetNamed(ctx context.Context, name string, progress ramdisk.ProgressFunc) (Created, error) {
	set, err := s.settings()
	if err != nil {
		return Created{}, err
	}
	p, err := set.FindPreset(name)
	if err != nil {
		return Created{}, err
	}
	return s.MountPreset(ctx, p, progress)
}

// UpOutcome is what Up did with one preset.
type UpOutcome string

// Outcomes of Up.
const (
	UpMounted UpOutcome = "mounted" // the disk was made
	UpSkipped UpOutcome = "skipped" // a disk of that name was already mounted
	UpFailed  UpOutcome = "failed"  // making it failed; Err says why
)

// UpOptions are `rambar up`'s: Force makes disks the memory check refuses.
type UpOptions struct {
	Force    bool
	Progress ramdisk.ProgressFunc
}

// UpResult is one auto-mount preset and what Up did with it.
type UpResult struct {
	Preset  ramdisk.Preset
	Outcome UpOutcome
	Volume  ramdisk.Volume // the new disk, or the one already mounted
	Plan    ramdisk.Plan   // set when the disk was made (its notes are worth showing)
	Err     error
}

// Up mounts every auto-mount preset whose disk is not mounted, one after the
// other, each through MountPreset; a disk mounted with its restore
// incomplete is a failure, saying how to go on. One failure does not stop
// the others. The error is only for settings that cannot be read;
// per-preset failures are in the results. `rambar up` and the menu at login
// run it.
func (s *Service) Up(ctx context.Context, o UpOptions) ([]UpResult, error) {
	set, err := s.settings()
	if err != nil {
		return nil, err
	}
	var out []UpResult
	for _, p := range set.AutoMountPresets() {
		c, err := s.mountPreset(ctx, p, o.Force, o.Progress)
		r := UpResult{Preset: p, Plan: c.Plan, Volume: c.Volume, Err: err}
		switch {
		case r.Err == nil:
			r.Outcome = UpMounted
		case errors.Is(r.Err, ramdisk.ErrExists) && r.Volume.Name != "" && !s.Incomplete(r.Volume):
			r.Outcome, r.Err = UpSkipped, nil
		default:
			r.Outcome = UpFailed
		}
		out = append(out, r)
	}
	return out, nil
}
