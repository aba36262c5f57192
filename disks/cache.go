package disks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rambar/ramdisk"
)

// Caches on a RAM disk, without the reboot trap (TmpDisk #47). A target
// folder T is switched onto disk D, mounted at MP, like this (DATA is
// RAMBar's data folder, ID the target's cacheID, NAME D's name in lower case):
//
//	T                       -> DATA/cache-links/ID   (a link that never changes)
//	DATA/cache-links/ID     -> MP/Caches/ID
//	MP/Caches/ID               D's folder while D is mounted; below D, where
//	MP/Caches               -> DATA/cache-empty/NAME (ramdisk.FallbackLink)
//	DATA/cache-empty/NAME/ID   an ordinary folder, T's fallback
//	DATA/cache-saved/ID        T's old contents, put back at 'off'
//
// The engine leaves MP/Caches below the mount point before it mounts D
// (Plan.CacheFallback, withFallback), and keeps MP while that link leads
// to a folder. So when D goes, whatever takes it (eject, umount -l, a
// crash, a reboot), T resolves to its fallback with nothing for RAMBar to
// do: eject and mount change no link. What apps wrote there while D was
// away is removed once D is mounted again (cachesToDisk).
//
// The middle link still changes, atomically (a new link renamed over it),
// in two cases: it follows D to a new mount point, and it points straight
// at the fallback when MP lost its link (cachesGone, point) or when D was
// mounted without one (by an older RAMBar, or by hand: such a disk takes no
// new target, and its caches are switched before RAMBar ejects it,
// cachesToFallback). T itself only ever changes by an atomic exchange
// (renameat2 RENAME_EXCHANGE, renamex_np RENAME_SWAP). A step of on or off
// cut short (kill -9) is finished, or undone, by the next cache command,
// 'rambar up' and the menu at start (RepairCaches), from the record in
// DATA/caches/ID.json written before each step.

// Cache record states.
const (
	cacheOn          = "on"
	cacheSwitchingOn = "switching-on"
	cacheGoingOff    = "switching-off"
)

// cacheStep, when set (tests), is called at each step of on and off.
var cacheStep func(step string)

func step(name string) {
	if cacheStep != nil {
		cacheStep(name)
	}
}

// CacheOn switches target onto the mounted disk name. The target's old
// contents are moved aside (kept for 'off'); a folder the system needs to
// log in is refused unless force. A target already on that disk is
// repaired and reported as on.
func (s *Service) CacheOn(ctx context.Context, name string, t CacheTarget, force bool) (CacheState, error) {
	if s.Paths.Data == "" {
		return CacheState{}, ErrNoData
	}
	_, already := s.cacheRecordFor(t.Path)
	if t.Path != TMPDIRKey && !already {
		var mps []string
		if ds, err := s.Engine.List(ctx); err == nil {
			for _, d := range ds {
				mps = append(mps, d.MountPoint)
			}
		}
		if err := checkCacheTarget(t.Path, os.Getenv("HOME"), s.Paths.Data, mps, force); err != nil {
			return CacheState{}, err
		}
	}
	v, err := s.Find(ctx, name)
	if err != nil {
		return CacheState{}, err
	}
	release, err := s.lock(ctx, v.Name, "switching a cache")
	if err != nil {
		return CacheState{}, err
	}
	defer release()
	if r, ok := s.cacheRecordFor(t.Path); ok {
		if !s.SameName(r.Disk, v.Name) {
			return CacheState{}, fmt.Errorf("%w: %s is on the RAM disk %s already; 'rambar cache off %s %s' first", ErrCacheRefused, t.Path, r.Disk, r.Disk, t.Key)
		}
		if err := s.settle(&r, &v); err != nil {
			return CacheState{}, err
		}
		return s.cacheState(r, &v), nil
	}
	if !s.fallbackReady(v) {
		return CacheState{}, s.cacheFallbackFix(v, t.Path, s.Engine.Caps())
	}
	id := cacheID(t.Path)
	for _, d := range []string{"caches", "cache-links", "cache-empty", "cache-saved"} {
		if err := os.MkdirAll(s.cacheDir(d), 0o700); err != nil {
			return CacheState{}, fmt.Errorf("cache: %w", err)
		}
	}
	r := cacheRecord{ID: id, Disk: v.Name, Target: t.Path, Label: t.Label, State: cacheSwitchingOn, MountPoint: v.MountPoint}
	if err := s.point(&r, &v); err != nil {
		return CacheState{}, err
	}
	if err := s.writeCacheRecord(r); err != nil {
		return CacheState{}, err
	}
	step("recorded")
	if t.Path != TMPDIRKey {
		if err := s.switchTarget(r); err != nil {
			return CacheState{}, err
		}
	}
	if err := s.settle(&r, &v); err != nil {
		return CacheState{}, err
	}
	return s.cacheState(r, &v), nil
}

// switchTarget puts the link in the target's place in one atomic step: a
// link made beside it is exchanged with it (the old folder is then beside
// it, moved to DATA/cache-saved by settle); a target that does not exist is
// simply the new link.
func (s *Service) switchTarget(r cacheRecord) error {
	pending := pendingPath(r.Target, r.ID)
	if st, err := os.Lstat(pending); err == nil && st.Mode()&os.ModeSymlink == 0 {
		return fmt.Errorf("%w: %s is in the way (move it away first)", ErrCacheRefused, pending)
	}
	os.Remove(pending)
	if err := os.Symlink(s.cacheLink(r.ID), pending); err != nil {
		return fmt.Errorf("cache %s: %w", r.Target, err)
	}
	step("link made")
	if _, err := os.Lstat(r.Target); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(pending, r.Target); err != nil {
			return fmt.Errorf("cache %s: %w", r.Target, err)
		}
		return nil
	}
	if err := exchange(pending, r.Target); err != nil {
		os.Remove(pending)
		return fmt.Errorf("cache %s: swap in the link: %w", r.Target, err)
	}
	step("exchanged")
	return nil
}

// movedLink finds the target's link moved aside in its folder (a Mirror
// write-back's conflict copy of it); "" when it is not there.
func (s *Service) movedLink(r cacheRecord) string {
	dir, base := filepath.Split(r.Target)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.Name() != base && strings.HasPrefix(e.Name(), base) && e.Type()&os.ModeSymlink != 0 && s.isOurLink(p, r.ID) {
			return p
		}
	}
	return ""
}

// isOurLink reports whether path is the link to the record's stable link.
func (s *Service) isOurLink(path, id string) bool {
	dest, err := os.Readlink(path)
	return err == nil && dest == s.cacheLink(id)
}

// settle finishes or undoes whatever step of on or off was cut short, then
// points the link where the disk is (v, or the mounted disk of the
// record's name when v is nil).
func (s *Service) settle(r *cacheRecord, v *ramdisk.Volume) error {
	pending := pendingPath(r.Target, r.ID)
	switch {
	case r.Target == TMPDIRKey:
		r.State = cacheOn
	case r.State == cacheGoingOff:
		return s.finishOff(*r)
	case r.State == cacheSwitchingOn && !s.isOurLink(r.Target, r.ID):
		// Cut short before the target was switched: undo.
		if st, err := os.Lstat(pending); err == nil && st.Mode()&os.ModeSymlink != 0 {
			os.Remove(pending)
		}
		os.Remove(s.cacheLink(r.ID))
		s.removeFallback(*r)
		os.Remove(s.cacheRecordPath(r.ID))
		return fmt.Errorf("cache %s: switching it on was interrupted and has been undone; run it again", r.Target)
	case r.State == cacheSwitchingOn:
		// The target is the link: move the old folder beside it to the saved place.
		saved := s.cacheSaved(r.ID)
		r.Saved = ""
		if st, err := os.Lstat(pending); err == nil && st.IsDir() {
			r.Saved = pending
			if err := os.Rename(pending, saved); err == nil {
				r.Saved = saved
			}
		} else if st, err := os.Lstat(saved); err == nil && st.IsDir() {
			r.Saved = saved
		}
		step("saved")
		r.State = cacheOn
	}
	if err := s.writeCacheRecord(*r); err != nil {
		return err
	}
	if v == nil {
		if d, err := s.Find(context.Background(), r.Disk); err == nil {
			v = &d
		}
	}
	return s.point(r, v)
}

// CacheOff puts target back as it was before 'on': its old contents (or
// nothing, when there was no folder) in its place, in one atomic step. A
// target that someone changed since is left alone and refused. TMPDIR's
// link stays, pointing at its empty folder, so a shell that still has it
// set never sees a dangling path.
func (s *Service) CacheOff(ctx context.Context, target string) error {
	r, ok := s.cacheRecordFor(target)
	if !ok {
		return fmt.Errorf("cache %s: %w (not on a RAM disk)", target, ramdisk.ErrNotFound)
	}
	release, err := s.lock(ctx, r.Disk, "switching a cache")
	if err != nil {
		return err
	}
	defer release()
	if r.Target == TMPDIRKey {
		r.MountPoint = ""
		if err := s.point(&r, nil); err != nil {
			return err
		}
		return os.Remove(s.cacheRecordPath(r.ID))
	}
	if r.State == cacheSwitchingOn {
		if err := s.settle(&r, nil); err != nil {
			return err
		}
	}
	if r.State != cacheGoingOff && !s.isOurLink(r.Target, r.ID) {
		if moved := s.movedLink(r); moved != "" {
			// A Mirror write-back whose disk had its own version of the
			// target kept that under the name and the link as a conflict copy.
			return fmt.Errorf("%w: %s is no longer RAMBar's link: a mirror disk's write-back put the disk's version there "+
				"and moved the link aside to %s (a conflict copy); left as it is: remove that link once the disk's version is what you want "+
				"(the folder's old contents are in %s)", ErrCacheRefused, r.Target, moved, r.Saved)
		}
		return fmt.Errorf("%w: %s is no longer RAMBar's link (changed by another program, or by hand); left as it is", ErrCacheRefused, r.Target)
	}
	r.State = cacheGoingOff
	if err := s.writeCacheRecord(r); err != nil {
		return err
	}
	step("off recorded")
	return s.finishOff(r)
}

// finishOff does (or finishes) the steps of off: the old folder beside the
// target, exchanged with the link, the link removed, RAMBar's folders and
// record removed. A target that did not exist before is removed.
func (s *Service) finishOff(r cacheRecord) error {
	pending := pendingPath(r.Target, r.ID)
	if s.isOurLink(r.Target, r.ID) {
		if r.Saved != "" {
			if r.Saved != pending {
				if _, err := os.Lstat(r.Saved); err == nil {
					if err := os.Rename(r.Saved, pending); err != nil {
						return fmt.Errorf("cache %s: put back %s: %w", r.Target, r.Saved, err)
					}
				}
			}
			step("back beside")
			if st, err := os.Lstat(pending); err == nil && st.IsDir() {
				if err := exchange(pending, r.Target); err != nil {
					return fmt.Errorf("cache %s: swap back: %w", r.Target, err)
				}
			}
			step("exchanged back")
		} else if err := os.Remove(r.Target); err != nil {
			return fmt.Errorf("cache %s: remove the link: %w", r.Target, err)
		}
	}
	if s.isOurLink(r.Target, r.ID) {
		// The saved contents are gone (removed by hand): never leave the link
		// to dangle; an empty folder takes its place.
		os.Remove(pending)
		if err := os.Mkdir(pending, 0o755); err == nil {
			if err := exchange(pending, r.Target); err != nil {
				return fmt.Errorf("cache %s: swap back: %w", r.Target, err)
			}
			os.Remove(pending)
		}
		if s.isOurLink(r.Target, r.ID) {
			return fmt.Errorf("cache %s: could not put a folder back in place of the link", r.Target)
		}
		r.Saved = "missing"
	}
	if s.isOurLink(pending, r.ID) {
		os.Remove(pending)
	}
	step("link gone")
	os.Remove(s.cacheLink(r.ID))
	s.removeFallback(r)
	if err := os.Remove(s.cacheRecordPath(r.ID)); err != nil {
		return fmt.Errorf("cache %s: %w", r.Target, err)
	}
	if r.Saved == "missing" {
		return fmt.Errorf("cache %s: its saved contents were gone, so it is an empty folder now", r.Target)
	}
	return nil
}

// removeFallback removes the target's fallback folder, and the disk's
// fallback folder once no target is left in it (the link below the disk's
// mount point then leads nowhere, and the engine drops that folder at the
// next eject).
func (s *Service) removeFallback(r cacheRecord) {
	os.RemoveAll(s.cacheEmpty(r))
	os.Remove(s.fallbackRoot(r.Disk))
}
