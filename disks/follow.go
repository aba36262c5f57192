package disks

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"rambar/internal/diskid"
	"rambar/keeper"
	"rambar/ramdisk"
)

// followers are the kept and mirrored disks this process follows by
// their change feeds (the menu-bar app's: Autosave starts them): its saves
// of them read only what changed, what is unsaved is known with no scan,
// and the disks set to save continuously are saved seconds after each
// change.
type followers struct {
	mu sync.Mutex
	m  map[string]*follower
	// start follows disk v at once while Autosave runs in this process
	// (startFollowing sets it, followNow asks it; Keep says why).
	start func(k *keeper.Keeper, v ramdisk.Volume) *keeper.Following
}

// follower is one followed disk, at its place (followPlace). A disk
// ejected and made again at the same place under the same name is another
// volume: it gets a follower of its own.
type follower struct {
	f     *keeper.Following
	place followPlace
	stop  context.CancelFunc
	// kick wakes its keepSaved when the disk's saving settings changed
	// in this process (Adjust), so that a disk set to save continuously
	// is saved at once.
	kick chan struct{}
}

// following is the follower of disk v, nil if none: of this very volume,
// not of one ejected before it was made again at the same place.
func (s *Service) following(v ramdisk.Volume) *keeper.Following {
	id := diskid.For(v.Identity, v.MountPoint)
	s.follow.mu.Lock()
	defer s.follow.mu.Unlock()
	if fl, ok := s.follow.m[v.Name]; ok && fl.place.mount == v.MountPoint && fl.place.id == id {
		return fl.f
	}
	return nil
}

// followedMoved reports whether a followed disk is no longer the volume
// mounted where it was (ejected, or ejected and made again): a stat of each
// mount point, cheap enough to ask every few seconds.
func (s *Service) followedMoved() bool {
	s.follow.mu.Lock()
	fls := slices.Collect(maps.Values(s.follow.m)) // a follower's place never changes
	s.follow.mu.Unlock()
	for _, fl := range fls {
		if local, err := diskid.Of(fl.place.mount); err != nil || local != fl.place.local {
			return true
		}
	}
	return false
}

// followDisks follows every disk of vs (the mounted ones) that is kept or
// mirrored and stops following those that are gone; the disks that save continuously
// are saved as they change, report hearing each save.
func (s *Service) followDisks(ctx context.Context, k *keeper.Keeper, vs []ramdisk.Volume, report func(name string, r keeper.Result, err error)) {
	mounted := map[string]followPlace{}
	for _, v := range vs {
		if here, ok := s.followOne(ctx, k, v, report); ok {
			mounted[v.Name] = here
		}
	}
	s.stopFollowing(mounted)
}

// followPlace is the volume a follower follows: mounted at mount, its
// identity id (diskid.For) and, read at once with no engine, local
// (diskid.Of).
type followPlace struct{ mount, id, local string }

// followOne follows disk v if it is kept or mirrored (and not in place)
// and not followed yet; ok says it is followed (or was already), here
// where.
func (s *Service) followOne(ctx context.Context, k *keeper.Keeper, v ramdisk.Volume, report func(name string, r keeper.Result, err error)) (here followPlace, ok bool) {
	st, err := k.State(v.Name)
	if err != nil || !k.Holds(v, st) || s.InPlace(ctx, v) != "" {
		return here, false // an in-place disk is saved from another mount point
	}
	local, err := diskid.Of(v.MountPoint)
	if err != nil {
		return here, false // gone since the listing
	}
	// Followed already when the follower's disk is this volume as the
	// engine tells it (id) and as a stat tells it now (local: what
	// followedMoved compares with).
	here = followPlace{v.MountPoint, diskid.For(v.Identity, v.MountPoint), local}
	s.follow.mu.Lock()
	fl, ok := s.follow.m[v.Name]
	s.follow.mu.Unlock()
	if ok && fl.place == here {
		return here, true
	}
	f, err := k.Follow(v)
	if err != nil {
		return here, true // no feed: its saves walk the disk, as always
	}
	fctx, stop := context.WithCancel(ctx)
	kick := make(chan struct{}, 1)
	s.follow.mu.Lock()
	if ctx.Err() != nil { // Autosave ended (stopFollowing runs after): never a follower left behind
		s.follow.mu.Unlock()
		stop()
		f.Close()
		return here, false
	}
	if s.follow.m == nil {
		s.follow.m = map[string]*follower{}
	}
	if old, ok := s.follow.m[v.Name]; ok {
		old.stop()
		old.f.Close()
	}
	s.follow.m[v.Name] = &follower{f: f, place: here, stop: stop, kick: kick}
	s.follow.mu.Unlock()
	go s.keepSaved(fctx, k, v, f, kick, report)
	return here, true
}

// stopFollowing stops following every disk that is not followed where
// mounted says (nil: every disk).
func (s *Service) stopFollowing(mounted map[string]followPlace) {
	s.follow.mu.Lock()
	defer s.follow.mu.Unlock()
	for name, fl := range s.follow.m {
		if here, ok := mounted[name]; !ok || here != fl.place {
			fl.stop()
			fl.f.Close()
			delete(s.follow.m, name)
		}
	}
}

// keepSaved saves disk v as it changes while it is set to save
// continuously (nextSave: seconds after the changes stop, at most seconds
// after the first unsaved one). The first save is at once and walks the
// disk, which gives the feed every folder to watch (a disk not saved
// continuously is walked by its next save); so is the first once a disk
// followed without saving continuously is set to (kick, or FollowCheck).
func (s *Service) keepSaved(ctx context.Context, k *keeper.Keeper, v ramdisk.Volume, f *keeper.Following, kick <-chan struct{}, report func(name string, r keeper.Result, err error)) {
	for first := true; first || s.nextSave(ctx, k, v, f, kick); first = false {
		if !s.continuous(k, v) || s.Incomplete(v) {
			continue // saved by its interval, if any (Autosave); an incomplete disk is never saved over
		}
		r, err := s.Save(ctx, v, SaveOptions{})
		if errors.Is(err, ramdisk.ErrNotFound) || ctx.Err() != nil {
			return
		}
		if report != nil {
			report(v.Name, r, err)
		}
	}
}

// nextSave waits until disk v is due for its next continuous save: while
// it saves continuously, by its feed (keeper.Following.Next); while it
// does not, until it is set to (kick: Adjust in this process; else looked
// at every FollowCheck), and then at once. Its feed cannot tell: an
// inotify feed (a normal user's on Linux) hears only the folders a save
// through it walked, and a disk saved by its interval may have had none
// yet, so `rambar keep NAME --save-every auto` on a kept disk would wait
// for some other save to walk it. False once ctx ends.
func (s *Service) nextSave(ctx context.Context, k *keeper.Keeper, v ramdisk.Volume, f *keeper.Following, kick <-chan struct{}) bool {
	if s.continuous(k, v) {
		return f.Next(ctx)
	}
	t := time.NewTicker(FollowCheck)
	defer t.Stop()
	for rested := false; ; {
		select {
		case <-ctx.Done():
			return false
		case <-kick:
		case <-t.C:
			if !rested {
				f.Rest() // the disk rests: its last save's leftovers go
				rested = true
			}
		}
		if s.continuous(k, v) {
			return true
		}
	}
}

// continuous reports whether disk v saves continuously: its own setting
// (--save-every auto), or the settings' for every kept disk.
func (s *Service) continuous(k *keeper.Keeper, v ramdisk.Volume) bool {
	st, err := k.State(v.Name)
	return err == nil && (st.Continuous || s.allContinuous())
}

// kickFollowing tells disk name's follower in this process that its
// saving settings changed (Adjust): it looks at once whether it saves
// continuously now.
func (s *Service) kickFollowing(name string) {
	s.follow.mu.Lock()
	defer s.follow.mu.Unlock()
	if fl, ok := s.follow.m[name]; ok {
		select {
		case fl.kick <- struct{}{}:
		default:
		}
	}
}

// followNow follows disk v at once when Autosave runs in this process
// (follow.start); nil when it does not (the CLI: the agent, if one runs,
// follows it within FollowCheck) or v has no feed.
func (s *Service) followNow(k *keeper.Keeper, v ramdisk.Volume) *keeper.Following {
	s.follow.mu.Lock()
	start := s.follow.start
	s.follow.mu.Unlock()
	if start == nil {
		return nil
	}
	return start(k, v)
}

// dirty reports whether disk v has unsaved changes: by its feed when
// followed and the feed can tell (and, for a Mirror disk, whether its
// folder lacks the last save), else by a scan (keeper.Dirty; walked says
// so).
func (s *Service) dirty(k *keeper.Keeper, v ramdisk.Volume) (dirty, walked bool, err error) {
	if f := s.following(v); f != nil {
		if u := f.Unsaved(); u.Known {
			return u.Paths > 0 || k.WriteBackDue(v.Name), false, nil
		}
	}
	dirty, err = k.Dirty(v)
	return dirty, true, err
}

// Unsaved is what changed on disk v since its last save, as its change
// feed tells it (Known false: not followed, or the feed cannot tell).
func (s *Service) Unsaved(v ramdisk.Volume) keeper.Unsaved {
	if f := s.following(v); f != nil {
		return f.Unsaved()
	}
	return keeper.Unsaved{Lost: "not followed"}
}

// allContinuous reports whether the settings save every kept or mirrored
// disk continuously (Settings ▸ Save Kept Disks Continuously).
func (s *Service) allContinuous() bool {
	set, err := s.settings()
	return err == nil && set.SaveContinuously
}
