package disks

import (
	"context"
	"time"

	"rambar/internal/boottime"
	"rambar/keeper"
)

// Autosave saves kept and mirrored disks that have a save interval until
// ctx ends: every tick it saves those with unsaved changes whose interval
// has passed since their last save (keeper.SaveDue: on the boot clock, so
// a wall clock set back stops nothing). report hears each save's outcome.
func (s *Service) Autosave(ctx context.Context, tick time.Duration, report func(name string, r keeper.Result, err error)) error {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		s.SaveAll(ctx, func(st keeper.State) bool {
			every := time.Duration(st.SaveEvery) * time.Second
			return every > 0 && keeper.SaveDue(st, every-tick/10, time.Now(), boottime.Now())
		}, report)
	}
}
