package disks

import (
	"context"
	"errors"
	"sync"

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
}

// follower is one followed disk: the volume mounted at mount whose
// identity is id (diskid.For) and, read at once with no engine, local
// (diskid.Of). A disk ejected and made again at the same place under the
// same name is another volume: it gets a follower of its own.
type follower struct {
	f         *keeper.Following
	mount     string
	id, local string
	stop      context.CancelFunc
}

// following is the follower of disk v, nil if none: of this very volume,
// not of one ejected before it was made again at the same place.
func (s *Service) following(v ramdisk.Volume) *keeper.Following {
	id := diskid.For(v.Identity, v.MountPoint)
	s.follow.mu.Lock()
	defer s.follow.mu.Unlock()
	if fl, ok := s.follow.m[v.Name]; ok && fl.mount == v.MountPoint && fl.id == id {
		return fl.f
	}
	return nil
}

// followedMoved reports whether a followed disk is no longer the volume
// mounted where it was (ejected, or ejected and made again): a stat of each
// mount point, cheap enough to ask every few seconds.
func (s *Service) followedMoved() bool {
	s.follow.mu.Lock()
	fls := make([]follower, 0, len(s.follow.m))
	for _, fl := range s.follow.m {
		fls = append(fls, *fl)
	}
	s.follow.mu.Unlock()
	for _, fl := range fls {
		if local, err := diskid.Of(fl.mount); err != nil || local != fl.local {
			return true
		}
	}
	return false
}

// followDisks follows every disk of vs (the mounted ones) that is kept or
// mirrored and stops following those that are gone; the disks that save continuously
// are saved as they change, report hearing each save.
func (s *Service) followDisks(ctx context.Context, k *keeper.Keeper, vs []ramdisk.Volume, report func(name string, r keeper.Result, err error)) {
	type place struct{ mount, id, local string }
	mounted := map[string]place{}
	for _, v := range vs {
		st, err := k.State(v.Name)
		if err != nil || !k.Holds(v, st) || s.InPlace(ctx, v) != "" {
			continue // an in-place disk is saved from another mount point
		}
		local, err := diskid.Of(v.MountPoint)
		if err != nil {
			continue // gone since the listing
		}
		// Followed already when the follower's disk is this volume as
		// the engine tells it (id) and as a stat tells it now (local:
		// what followedMoved compares with).
		here := place{v.MountPoint, diskid.For(v.Identity, v.MountPoint), local}
		mounted[v.Name] = here
		s.follow.mu.Lock()
		fl, ok := s.follow.m[v.Name]
		same := ok && (place{fl.mount, fl.id, fl.local}) == here
		s.follow.mu.Unlock()
		if same {
			continue
		}
		f, err := k.Follow(v)
		if err != nil {
			continue // no feed: its saves walk the disk, as always
		}
		fctx, stop := context.WithCancel(ctx)
		s.follow.mu.Lock()
		if s.follow.m == nil {
			s.follow.m = map[string]*follower{}
		}
		if old, ok := s.follow.m[v.Name]; ok {
			old.stop()
			old.f.Close()
		}
		s.follow.m[v.Name] = &follower{f: f, mount: here.mount, id: here.id, local: here.local, stop: stop}
		s.follow.mu.Unlock()
		go s.keepSaved(fctx, k, v, f, report)
	}
	s.follow.mu.Lock()
	for name, fl := range s.follow.m {
		if mounted[name] != (place{fl.mount, fl.id, fl.local}) {
			fl.stop()
			fl.f.Close()
			delete(s.follow.m, name)
		}
	}
	s.follow.mu.Unlock()
}

// stopFollowing stops following every disk.
func (s *Service) stopFollowing() {
	s.follow.mu.Lock()
	defer s.follow.mu.Unlock()
	for name, fl := range s.follow.m {
		fl.stop()
		fl.f.Close()
		delete(s.follow.m, name)
	}
}

// keepSaved saves disk v as it changes while it is set to save
// continuously (keeper.Following.Next: seconds after the changes stop, at
// most seconds after the first unsaved one). The first save is at once
// and walks the disk, which gives the feed every folder to watch (a disk
// not saved continuously is walked by its next save).
func (s *Service) keepSaved(ctx context.Context, k *keeper.Keeper, v ramdisk.Volume, f *keeper.Following, report func(name string, r keeper.Result, err error)) {
	for first := true; first || f.Next(ctx); first = false {
		if st, err := k.State(v.Name); err != nil || !(st.Continuous || s.allContinuous()) || s.Incomplete(v) {
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

// dirty reports whether disk v has unsaved changes: by its feed when
// followed and the feed can tell, else by a scan (keeper.Dirty; walked
// says so).
func (s *Service) dirty(k *keeper.Keeper, v ramdisk.Volume) (dirty, walked bool, err error) {
	if f := s.following(v); f != nil {
		if u := f.Unsaved(); u.Known {
			return u.Paths > 0, false, nil
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
	st, err := s.Store()
	if err != nil {
		return false
	}
	set, err := st.Load()
	return err == nil && set.SaveContinuously
}
