package keeper

import (
	"context"
	"errors"
	"time"

	"rambar/internal/boottime"
	"rambar/ramdisk"
)

// SaveAll saves every kept or mirrored disk among vs that has unsaved
// changes (on quit, before sleep, at eject of all). report, when not nil,
// hears each disk's outcome; disks that are not kept are skipped silently.
// The returned error joins the failures.
func (k *Keeper) SaveAll(ctx context.Context, vs []ramdisk.Volume, o SaveOptions, report func(name string, r Result, err error)) error {
	var errs []error
	for _, v := range vs {
		if _, err := k.State(v.Name); err != nil {
			if !errors.Is(err, ErrNotKept) {
				errs = append(errs, err)
			}
			continue
		}
		if dirty, err := k.Dirty(v); err == nil && !dirty {
			continue
		}
		r, err := k.Save(ctx, v, o)
		if report != nil {
			report(v.Name, r, err)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// SaveDue reports whether the disk whose state is st is due for its
// autosave, every apart (every <= 0: never), at now (the wall clock) and
// clock (the boot clock). A save of this boot is timed on the boot clock,
// which setting the wall clock does not move; an earlier one (or one not
// stamped) by the wall clock, where a last save stamped in the future (the
// clock was set back) is due at once rather than when the clock catches
// up. A disk never saved is due.
func SaveDue(st State, every time.Duration, now time.Time, clock boottime.Stamp) bool {
	if every <= 0 {
		return false
	}
	if st.LastSave.IsZero() {
		return true
	}
	if d, ok := clock.Sub(st.LastSaveClock); ok && d >= 0 {
		return d >= every
	}
	return st.LastSave.After(now) || now.Sub(st.LastSave) >= every
}

// Autosave saves kept and mirrored disks until ctx is done. Every tick
// (interval) it lists the mounted disks and saves those with unsaved
// changes whose own interval (State.SaveEvery, or interval when that is 0)
// has passed since their last save. report hears each save's outcome.
func (k *Keeper) Autosave(ctx context.Context, interval time.Duration, list func(context.Context) ([]ramdisk.Volume, error),
	report func(name string, r Result, err error)) error {
	if interval <= 0 {
		return errors.New("autosave: interval must be positive")
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		vs, err := list(ctx)
		if err != nil {
			continue
		}
		var due []ramdisk.Volume
		for _, v := range vs {
			st, err := k.State(v.Name)
			if err != nil {
				continue
			}
			every := time.Duration(st.SaveEvery) * time.Second
			if every == 0 {
				every = interval
			}
			if SaveDue(st, every-interval/10, time.Now(), boottime.Now()) {
				due = append(due, v)
			}
		}
		k.SaveAll(ctx, due, SaveOptions{}, report)
	}
}
