package disks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"rambar/keeper"
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
// (keeper.Keeper.Reclaim). Unless o.Force, a disk pinning little is refused
// with ErrNotWorthwhile; a disk with something mounted inside is refused
// before anything changes (keeper.RefuseMounts).
func (s *Service) Reclaim(ctx context.Context, v ramdisk.Volume, o ReclaimOptions) (keeper.ReclaimResult, error) {
	k, err := s.Keeper()
	if err != nil {
		return keeper.ReclaimResult{}, err
	}
	release, err := s.lock(ctx, v.Name, "reclaiming")
	if err != nil {
		return keeper.ReclaimResult{}, err
	}
	defer release()
	if r, ok := s.readInPlace(v.Name); ok {
		return keeper.ReclaimResult{}, fmt.Errorf("reclaim %s: %w: it is in place at %s, which would be left uncovered while it is made again; "+
			"eject it and create it again to give its memory back", v.Name, keeper.ErrRefused, r.Folder)
	}
	if err := keeper.RefuseMounts("reclaim", v.Name, v.MountPoint); err != nil {
		return keeper.ReclaimResult{}, err // before its caches are moved
	}
	u, err := s.Engine.Usage(ctx, v)
	if err != nil {
		return keeper.ReclaimResult{}, fmt.Errorf("reclaim %s: %w", v.Name, err)
	}
	if !u.ReclaimWorthwhile() && !o.Force {
		return keeper.ReclaimResult{}, notWorthwhile{fmt.Sprintf("reclaim %s: only %s is pinned (worth it from %s and %.0f%% of the size); use --force to do it anyway",
			v.Name, u.Pinned().Short(), ramdisk.ReclaimThreshold.Short(), 100*ramdisk.ReclaimFraction)}
	}
	plan, err := s.replan(ctx, v, u)
	if err != nil {
		return keeper.ReclaimResult{}, err
	}
	if st := s.stagingFor(v.Name); st != "" {
		return keeper.ReclaimResult{}, fmt.Errorf("reclaim %s: %w: an earlier reclaim of it was stopped (its copy is in %s); 'rambar reclaim %s --resume' finishes or undoes it first",
			v.Name, ErrReclaimStopped, st, quoteArg(v.Name))
	}
	if err := s.cachesToFallback(v); err != nil {
		return keeper.ReclaimResult{}, fmt.Errorf("reclaim %s: %w", v.Name, err)
	}
	rec := reclaimRecord{Name: v.Name, Size: v.Size, FS: v.FS, Hidden: v.Hidden, MountPoint: plan.MountPoint,
		Dev: devOf(v.MountPoint), Volume: volumeStamp(v.MountPoint), Marker: readMarker(v.MountPoint)}
	res, err := k.Reclaim(ctx, s.Engine, v, plan, s.journal(&rec), mirrorProgress(v.Name, o.Progress))
	if rec.Staging == "" || !exists(rec.Staging) {
		// Done, or stopped before the eject with nothing changed: the
		// record goes, and the caches back to the disk.
		os.Remove(s.reclaimPath(v.Name))
		if nv, ferr := s.Find(ctx, v.Name); ferr == nil && err == nil {
			s.cachesToDisk(nv, &plan) // made again from plan
		} else if ferr == nil {
			s.cachesToDisk(nv, nil)
		}
	}
	return res, err
}

// exists reports whether path is there (not followed).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// quoteArg quotes a disk name for a command line shown to the user when it
// holds a space.
func quoteArg(name string) string {
	if strings.ContainsAny(name, " \t'\"") {
		return fmt.Sprintf("%q", name)
	}
	return name
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

// stoppedWhileGone returns the staging copy of a reclaim of the disk that
// was stopped after the eject ("" if none): the disk is not mounted, so its
// contents are only there. A reclaim stopped while copying out, or one
// whose record is gone, is left to ResumeReclaim (the next create makes the
// disk as if there were none); one that had already verified the disk
// whole has what is left of its copy removed.
func (s *Service) stoppedWhileGone(name string) (string, reclaimRecord) {
	rec, ok := s.readReclaimRecord(name)
	if !ok {
		return "", rec
	}
	staging := s.stagingOf(name, rec, true)
	switch {
	case rec.Step == keeper.ReclaimCopiedBack:
		if staging != "" {
			s.dropStaging(name, staging)
		} else {
			os.Remove(s.reclaimPath(name))
		}
		return "", rec
	case rec.Step == stepOut || rec.Tree == nil:
		return "", rec
	}
	return staging, rec
}

// finishFromStaging is the next create of a disk whose reclaim was stopped
// while it was gone: the staging copy, checked against the sum of what the
// disk held, goes back on the disk made from c.Plan (it is newer than any
// save), verified, and only then is it removed. If it does not go back,
// the disk is ejected again and the staging copy stays.
func (s *Service) finishFromStaging(ctx context.Context, c Created, staging string, rec reclaimRecord, progress ramdisk.ProgressFunc) (Created, error) {
	want, err := s.checkStaging(c.Plan.Name, staging, *rec.Tree)
	if err != nil {
		return c, fmt.Errorf("create %s: %w", c.Plan.Name, err)
	}
	if c.Volume, err = s.Engine.Create(ctx, c.Plan); err != nil {
		s.cachesAway(context.WithoutCancel(ctx), c.Plan.Name)
		return c, fmt.Errorf("create %s: %w", c.Plan.Name, err)
	}
	s.recordMade(&c)
	if err := s.fill(ctx, &rec, c.Volume, staging, want, progress); err != nil {
		if ejErr := s.Engine.Eject(context.WithoutCancel(ctx), c.Volume, true); ejErr != nil {
			err = fmt.Errorf("%w (and ejecting it again failed: %v)", err, ejErr)
		}
		return c, err
	}
	c.Reclaimed = staging
	s.madeExtras(&c)
	return c, s.copiedBack(rec, staging)
}
