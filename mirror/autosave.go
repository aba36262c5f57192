package mirror

import (
	"context"
	"errors"
	"time"

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
			if errors.Is(err, ErrNotKept) {
				continue
			}
			errs = append(errs, err)
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
			if time.Since(st.LastSave) >= every-interval/10 {
				due = append(due, v)
			}
		}
		k.SaveAll(ctx, due, SaveOptions{}, report)
	}
}
