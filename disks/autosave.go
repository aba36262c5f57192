package disks

import (
	"context"
	"os"
	"time"

	"rambar/internal/boottime"
	"rambar/internal/diskid"
	"rambar/keeper"
	"rambar/ramdisk"
)

// Autosave saves kept and mirrored disks until ctx ends. It follows each
// of them by its change feed (follow.go), at once and at every tick: the
// disks set to save continuously are saved seconds after each change, and
// every save of a followed disk reads only what changed. Every tick it
// also saves those with an interval and unsaved changes whose interval
// has passed since their last save (keeper.SaveDue: on the boot clock, so
// a wall clock set back stops nothing). report hears each save's outcome.
//
// Between ticks it looks every FollowCheck, with a stat or two and no
// listing, whether a followed disk is no longer the volume mounted where
// it was or this data folder's records of the disks it made changed (a
// disk made or ejected, by the CLI too); then it lists the disks and
// follows them again: a followed disk ejected and made again is followed
// again within seconds, by a feed of the new disk. A disk this process
// keeps (the agent's keep) is followed at once (followNow).
func (s *Service) Autosave(ctx context.Context, tick time.Duration, report func(name string, r keeper.Result, err error)) error {
	t := time.NewTicker(tick)
	defer t.Stop()
	look := time.NewTicker(min(FollowCheck, tick))
	defer look.Stop()
	defer s.stopFollowing(nil)
	made := s.madeStamp()
	defer s.startFollowing(ctx, report)()
	if k, vs, err := s.mountedKeeper(ctx); err == nil {
		s.followDisks(ctx, k, vs, report)
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-look.C:
			stamp := s.madeStamp()
			if stamp == made && !s.followedMoved() {
				continue
			}
			if k, vs, err := s.mountedKeeper(ctx); err == nil {
				made = stamp
				s.followDisks(ctx, k, vs, report)
			}
			continue
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

// startFollowing lets this process's keep follow a disk at once with
// Autosave's ctx and report (followNow) until the returned func is called.
func (s *Service) startFollowing(ctx context.Context, report func(name string, r keeper.Result, err error)) (end func()) {
	s.follow.mu.Lock()
	defer s.follow.mu.Unlock()
	s.follow.start = func(k *keeper.Keeper, v ramdisk.Volume) *keeper.Following {
		if _, ok := s.followOne(ctx, k, v, report); !ok {
			return nil
		}
		return s.following(v)
	}
	return func() {
		s.follow.mu.Lock()
		s.follow.start = nil
		s.follow.mu.Unlock()
	}
}

// FollowCheck is how often Autosave looks whether the disks it follows
// are still mounted and whether this data folder made or ejected a disk.
const FollowCheck = 2 * time.Second

// madeStamp is when this data folder's records of the disks it made last
// changed (every create, keep and eject writes or removes one; zero when
// there are none): the folder's modification time, one stat.
func (s *Service) madeStamp() time.Time {
	k, err := s.Keeper()
	if err != nil || k.Data == "" {
		return time.Time{}
	}
	fi, err := os.Stat(diskid.NewRegistry(k.Data).Dir)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}
