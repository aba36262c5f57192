package disks

import (
	"context"
	"time"

	"rambar/internal/boottime"
	"rambar/keeper"
)

// Autosave saves kept and mirrored disks until ctx ends. It follows each
// of them by its change feed (follow.go), at once and at every tick: the
// disks set to save continuously are saved seconds after each change, and
// every save of a followed disk reads only what changed. Every tick it
// also saves those with an interval and unsaved changes whose interval
// has passed since their last save (keeper.SaveDue: on the boot clock, so
// a wall clock set back stops nothing). report hears each save's outcome.
func (s *Service) Autosave(ctx context.Context, tick time.Duration, report func(name string, r keeper.Result, err error)) error {
	t := time.NewTicker(tick)
	defer t.Stop()
	defer s.stopFollowing()
	if k, vs, err := s.mountedKeeper(ctx); err == nil {
		s.followDisks(ctx, k, vs, report)
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		k, vs, err := s.mountedKeeper(ctx) // one listing for both
		if err != nil {
			continue
		}
		s.followDisks(ctx, k, vs, report)
		s.saveAllOf(ctx, k, vs, func(st keeper.State) bool {
			every := time.Duration(st.SaveEvery) * time.Second
			return every > 0 && keeper.SaveDue(st, every-tick/10, time.Now(), boottime.Now())
		}, report)
	}
}
