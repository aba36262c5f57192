package disks

import (
	"context"
	"time"

	"rambar/mirror"
)

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
