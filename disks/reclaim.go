package disks

import (
	"context"
	"fmt"
	"strings"

	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

// ErrNotWorthwhile marks a reclaim refused because little memory is pinned;
// ReclaimOptions.Force overrides.
var ErrNotWorthwhile = i18n.New("reclaim not worthwhile")

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
	k, release, err := s.keeperLocked(ctx, v.Name, "reclaiming")
	if err != nil {
		return keeper.ReclaimResult{}, err
	}
	defer release()
	if r, ok := s.readInPlace(v.Name); ok {
		return keeper.ReclaimResult{}, i18n.Errorf("reclaim %s: %w: it is in place at %s, which would be left uncovered while it is made again; "+
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
	f, err := s.Facts(ctx)
	if err != nil {
		return keeper.ReclaimResult{}, err
	}
	held := ramdisk.Size(0)
	if u.HeldKnown {
		held = u.Held
	}
	plan, err := s.replan(v, f.Without(v.Name, held)) // as if v were not mounted
	if err != nil {
		return keeper.ReclaimResult{}, fmt.Errorf("reclaim %s: %w", v.Name, err)
	}
	if st := k.StagingFor(v.Name); st != "" {
		return keeper.ReclaimResult{}, fmt.Errorf("reclaim %s: %w: an earlier reclaim of it was stopped (its copy is in %s); 'rambar reclaim %s --resume' finishes or undoes it first",
			v.Name, keeper.ErrReclaimStopped, st, quoteArg(v.Name))
	}
	if err := s.Caches().ToFallback(v); err != nil {
		return keeper.ReclaimResult{}, fmt.Errorf("reclaim %s: %w", v.Name, err)
	}
	res, err := k.Reclaim(ctx, s.Engine, v, plan, s.reclaimed, mirrorProgress(v.Name, o.Progress))
	if k.StagingFor(v.Name) == "" {
		// Done, or stopped before the eject with nothing changed: the
		// caches go back to the disk.
		if nv, ferr := s.Find(ctx, v.Name); ferr == nil && err == nil {
			s.Caches().ToDisk(nv, &plan) // made again from plan
		} else if ferr == nil {
			s.Caches().ToDisk(nv, nil)
		}
	}
	return res, err
}

// quoteArg quotes a disk name for a command line shown to the user when it
// holds a space.
func quoteArg(name string) string {
	if strings.ContainsAny(name, " \t'\"") {
		return fmt.Sprintf("%q", name)
	}
	return name
}

// replan plans disk v again as it was made (name, size, file system,
// hidden, mount point, extras: asItWas) with the facts f, so a reclaim or
// its resume can make it anew. The disk was made already: memory checks
// were passed then.
func (s *Service) replan(v ramdisk.Volume, f ramdisk.Facts) (ramdisk.Plan, error) {
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: v.Name, Size: v.Size, FS: v.FS, Hidden: v.Hidden, Force: true}, f)
	if err != nil {
		return p, err
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
	if o, ok := s.VolumeOptionsOf(v); ok {
		p.Options = o
		if o.MountPoint != "" {
			p.Options.MountPoint = v.MountPoint
		}
	}
	s.Caches().WithFallback(p, s.Engine.Caps())
}

// finishFromStaging is the next create of a disk whose reclaim was stopped
// while it was gone (keeper.StoppedWhileGone): its staging copy goes back
// on the disk made from c.Plan (it is newer than any save), verified, and
// only then is it removed. If it does not go back, the disk is ejected
// again and the staging copy stays.
func (s *Service) finishFromStaging(ctx context.Context, k *keeper.Keeper, c Created, st *keeper.StoppedWhileGone, progress ramdisk.ProgressFunc) (Created, error) {
	var err error
	if c.Volume, err = s.Engine.Create(ctx, c.Plan); err != nil {
		s.Caches().Away(context.WithoutCancel(ctx), c.Plan.Name)
		return c, fmt.Errorf("create %s: %w", c.Plan.Name, err)
	}
	s.recordMade(&c)
	if err := k.Refill(ctx, c.Volume, st, mirrorProgress(c.Plan.Name, progress)); err != nil {
		if ejErr := s.Engine.Eject(context.WithoutCancel(ctx), c.Volume, true); ejErr != nil {
			err = fmt.Errorf("%w (and ejecting it again failed: %v)", err, ejErr)
		}
		return c, err
	}
	c.Reclaimed = st.Staging()
	s.madeExtras(&c)
	return c, nil
}

// ResumeReclaim finishes or undoes a reclaim that was stopped, under the
// disk's lock (keeper.Keeper.ResumeReclaim): the disk is made again as it
// was when it is gone, and its caches, on their empty folders since the
// reclaim began, point at it again once it is finished or undone.
func (s *Service) ResumeReclaim(ctx context.Context, name string, progress ramdisk.ProgressFunc) (keeper.Resumed, ramdisk.Volume, error) {
	k, release, err := s.keeperLocked(ctx, name, "reclaiming")
	if err != nil {
		return "", ramdisk.Volume{}, err
	}
	defer release()
	r, v, err := k.ResumeReclaim(ctx, name, keeper.Resume{Find: s.Find, Remake: s.remake, Progress: mirrorProgress(name, progress)})
	if r == keeper.ResumeFinished || r == keeper.ResumeUndone { // the disk holds its contents (err: only the staging copy stayed)
		var made *ramdisk.Plan // the disk was made again (remake)
		if r == keeper.ResumeFinished {
			made = &ramdisk.Plan{Name: v.Name}
			s.asItWas(made, v)
		}
		v.Notes = append(v.Notes, s.Caches().ToDisk(v, made)...)
	}
	return r, v, err
}

// remake makes the disk again as a reclaim's journal says it was.
func (s *Service) remake(ctx context.Context, r keeper.Remade) (ramdisk.Volume, error) {
	f, err := s.Facts(ctx)
	if err != nil {
		return ramdisk.Volume{}, err
	}
	p, err := s.replan(ramdisk.Volume{Name: r.Name, Size: r.Size, FS: r.FS, Hidden: r.Hidden, MountPoint: r.MountPoint}, f)
	if err != nil {
		return ramdisk.Volume{}, err
	}
	return s.Engine.Create(ctx, p)
}

// StoppedReclaims lists the stopped reclaims (keeper.Keeper.StoppedReclaims),
// from the data folder alone (cheap: the menu asks on every refresh).
func (s *Service) StoppedReclaims() []Leftover {
	k, err := s.Keeper()
	if err != nil {
		return nil
	}
	var out []Leftover
	for _, st := range k.StoppedReclaims() {
		l := Leftover{Kind: LeftReclaim, Name: st.Name, Path: st.Path}
		switch {
		case st.Finished:
			l = l.Advised("a reclaim of %s finished, but was stopped before it removed its record: rambar reclaim %q --resume removes it", st.Name, st.Name)
		case st.Untouched:
			l = l.Advised("a reclaim of %s was stopped before it copied anything; the disk is as it was: rambar reclaim %q --resume removes its record", st.Name, st.Name)
		default:
			l = l.Advised("a reclaim of %s was stopped; its contents are safe there: rambar reclaim %q --resume finishes or undoes it", st.Name, st.Name)
		}
		out = append(out, l)
	}
	return out
}
