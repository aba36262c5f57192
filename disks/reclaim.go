package disks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"rambar/mirror"
	"rambar/ramdisk"
)

// ErrNotWorthwhile marks a reclaim refused because little memory is pinned;
// ReclaimOptions.Force overrides.
var ErrNotWorthwhile = errors.New("reclaim not worthwhile")

type notWorthwhile struct{ msg string }

func (e notWorthwhile) Error() string        { return e.msg }
func (e notWorthwhile) Is(target error) bool { return target == ErrNotWorthwhile }

// ReclaimOptions tune one reclaim.
type ReclaimOptions struct {
	// Force reclaims even when little memory is pinned.
	Force    bool
	Progress ramdisk.ProgressFunc
}

// Reclaim gives back the memory deleted files still pin: under the disk's
// lock it moves the contents out, makes the disk again from the same plan
// (name, size, file system, mount point) and moves them back, verified
// (mirror.Keeper.Reclaim). Unless o.Force, a disk pinning little is refused
// with ErrNotWorthwhile.
func (s *Service) Reclaim(ctx context.Context, v ramdisk.Volume, o ReclaimOptions) (mirror.ReclaimResult, error) {
	k, err := s.Keeper()
	if err != nil {
		return mirror.ReclaimResult{}, err
	}
	release, err := s.lock(ctx, v.Name, "reclaiming")
	if err != nil {
		return mirror.ReclaimResult{}, err
	}
	defer release()
	if r, ok := s.readInPlace(v.Name); ok {
		return mirror.ReclaimResult{}, fmt.Errorf("reclaim %s: %w: it is in place at %s, which would be left uncovered while it is made again; "+
			"eject it and create it again to give its memory back", v.Name, mirror.ErrRefused, r.Folder)
	}
	u, err := s.Engine.Usage(ctx, v)
	if err != nil {
		return mirror.ReclaimResult{}, fmt.Errorf("reclaim %s: %w", v.Name, err)
	}
	if !u.ReclaimWorthwhile() && !o.Force {
		return mirror.ReclaimResult{}, notWorthwhile{fmt.Sprintf("reclaim %s: only %s is pinned (worth it from %s and %.0f%% of the size); use --force to do it anyway",
			v.Name, u.Pinned().Short(), ramdisk.ReclaimThreshold.Short(), 100*ramdisk.ReclaimFraction)}
	}
	plan, err := s.replan(ctx, v, u)
	if err != nil {
		return mirror.ReclaimResult{}, err
	}
	if err := s.cachesToFallback(v); err != nil {
		return mirror.ReclaimResult{}, fmt.Errorf("reclaim %s: %w", v.Name, err)
	}
	rec := reclaimRecord{Name: v.Name, Size: v.Size, FS: v.FS, Hidden: v.Hidden, MountPoint: plan.MountPoint,
		Dev: devOf(v.MountPoint), Marker: readMarker(v.MountPoint), Step: stepOut}
	if err := s.writeReclaimRecord(rec); err != nil {
		s.cachesToDisk(v, nil) // nothing changed: the caches go back to it
		return mirror.ReclaimResult{}, err
	}
	res, err := k.Reclaim(ctx, recordingEngine{s.Engine, s, rec}, v, plan, mirrorProgress(v.Name, o.Progress))
	var stopped *mirror.ReclaimError
	if !errors.As(err, &stopped) {
		os.Remove(s.reclaimPath(v.Name)) // done, or nothing changed
		if nv, ferr := s.Find(ctx, v.Name); ferr == nil && err == nil {
			s.cachesToDisk(nv, &plan) // made again from plan
		} else if ferr == nil {
			s.cachesToDisk(nv, nil)
		}
	}
	return res, err
}

// replan plans the same disk again (name, size, file system, hidden) as if
// v were not mounted, so Reclaim can make it anew.
func (s *Service) replan(ctx context.Context, v ramdisk.Volume, u ramdisk.Usage) (ramdisk.Plan, error) {
	f, err := s.Facts(ctx)
	if err != nil {
		return ramdisk.Plan{}, err
	}
	held := ramdisk.Size(0)
	if u.HeldKnown {
		held = u.Held
	}
	f = f.Without(v.Name, held)
	// The disk exists already: memory checks were passed when it was made.
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: v.Name, Size: v.Size, FS: v.FS, Hidden: v.Hidden, Force: true}, f)
	if err != nil {
		return p, fmt.Errorf("reclaim %s: %w", v.Name, err)
	}
	if v.MountPoint != "" {
		p.MountPoint = v.MountPoint
	}
	s.asItWas(&p, v)
	return p, nil
}

// asItWas gives a plan that makes the disk v again the extras it was made
// with (recorded by Create): noexec, at its own folder, and the fallback
// link below its mount point.
func (s *Service) asItWas(p *ramdisk.Plan, v ramdisk.Volume) {
	if o, ok := s.options(v); ok {
		p.Options = o
		if o.MountPoint != "" {
			p.Options.MountPoint = v.MountPoint
		}
	}
	s.withFallback(p, s.Engine.Caps())
}

// Autosave saves kept and mirrored disks that have a save interval until
// ctx ends: every tick it saves those with unsaved changes whose interval
// has passed since their last save. report hears each save's outcome.
func (s *Service) Autosave(ctx context.Context, tick time.Duration, report func(name string, r mirror.Result, err error)) error {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		s.SaveAll(ctx, func(st mirror.State) bool {
			every := time.Duration(st.SaveEvery) * time.Second
			return every > 0 && time.Since(st.LastSave) >= every-tick/10
		}, report)
	}
}
