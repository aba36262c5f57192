package disks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rambar/keeper"
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
		if err := s.refuseMirrored(t.Path); err != nil {
			return CacheState{}, err
		}
	}
	v, err := s.Find(ctx, name)
	if err != nil {
		return CacheState{}, err
	}
	if !already {
		if err := s.refuseMirrorDisk(v, t.Path); err != nil {
			return CacheState{}, err
		}
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
	// The record first: whatever the next steps make (the disk's folder,
	// the fallback folder, the links), a kill -9 leaves a record that the
	// next command settles (finishes or undoes), never orphans.
	r := cacheRecord{ID: id, Disk: v.Name, Target: t.Path, Label: t.Label, State: cacheSwitchingOn, MountPoint: v.MountPoint}
	if err := s.writeCacheRecord(r); err != nil {
		return CacheState{}, err
	}
	step("recorded")
	if err := s.point(&r, &v); err != nil {
		s.undoOn(r)
		return CacheState{}, err
	}
	step("pointed")
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
		s.undoOn(*r)
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
	_, err := s.CacheOffTold(ctx, target)
	return err
}

// CacheOffTold is CacheOff, with what the user must hear besides: where a
// folder found in the target's place was kept (a Mirror write-back that set
// RAMBar's link aside as a conflict copy, by an older RAMBar: the link is
// found there and put back, and that folder moved beside the target).
func (s *Service) CacheOffTold(ctx context.Context, target string) (string, error) {
	r, ok := s.cacheRecordFor(target)
	if !ok {
		return "", fmt.Errorf("cache %s: %w (not on a RAM disk)", target, ramdisk.ErrNotFound)
	}
	release, err := s.lock(ctx, r.Disk, "switching a cache")
	if err != nil {
		return "", err
	}
	defer release()
	if r.Target == TMPDIRKey {
		r.MountPoint = ""
		if err := s.point(&r, nil); err != nil {
			return "", err
		}
		return "", os.Remove(s.cacheRecordPath(r.ID))
	}
	if r.State == cacheSwitchingOn {
		if err := s.settle(&r, nil); err != nil {
			return "", err
		}
	}
	var told string
	if r.State != cacheGoingOff && !s.isOurLink(r.Target, r.ID) {
		aside := s.linkSetAside(r)
		if aside == "" {
			return "", fmt.Errorf("%w: %s is no longer RAMBar's link (something replaced it: by hand, or another tool); left as it is", ErrCacheRefused, r.Target)
		}
		if told, err = s.linkBack(r, aside); err != nil {
			return "", err
		}
	}
	r.State = cacheGoingOff
	if err := s.writeCacheRecord(r); err != nil {
		return told, err
	}
	step("off recorded")
	return told, s.finishOff(r)
}

// linkSetAside finds RAMBar's link to the target set aside beside it as a
// Mirror write-back's conflict copy (NAME.rambar-conflict-…); "" if none.
func (s *Service) linkSetAside(r cacheRecord) string {
	dir, base := filepath.Split(r.Target)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if p := filepath.Join(dir, e.Name()); strings.HasPrefix(e.Name(), base+".rambar-conflict-") && s.isOurLink(p, r.ID) {
			return p
		}
	}
	return ""
}

// linkBack moves what holds the target's place (the folder the write-back
// put there) beside it, kept, and the set-aside link back into the place,
// each by one rename: a kill -9 between them leaves the target missing,
// which the next 'off' finishes the same way.
func (s *Service) linkBack(r cacheRecord, aside string) (string, error) {
	var told string
	if _, err := os.Lstat(r.Target); err == nil {
		kept := r.Target + ".rambar-cache-copy-" + time.Now().Format("20060102-150405")
		if err := os.Rename(r.Target, kept); err != nil {
			return "", fmt.Errorf("cache %s: move aside what the mirror's write-back put there: %w", r.Target, err)
		}
		told = fmt.Sprintf("what a mirror's write-back had put in the place of %s (a copy of the cache) is kept as %s", r.Target, kept)
	}
	if err := os.Rename(aside, r.Target); err != nil {
		return told, fmt.Errorf("cache %s: put RAMBar's link back from %s: %w", r.Target, aside, err)
	}
	return told, nil
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

// undoOn undoes an 'on' that did not switch the target: the link made
// beside it, RAMBar's links and folders (the fallback, the disk's empty
// folder for it), then the record, last.
func (s *Service) undoOn(r cacheRecord) {
	pending := pendingPath(r.Target, r.ID)
	if st, err := os.Lstat(pending); err == nil && st.Mode()&os.ModeSymlink != 0 {
		os.Remove(pending)
	}
	os.Remove(s.cacheLink(r.ID))
	s.removeFallback(r)
	caches := filepath.Join(r.MountPoint, ramdisk.FallbackLink)
	if st, err := os.Lstat(caches); r.MountPoint != "" && err == nil && st.IsDir() {
		// The disk is mounted: its folder for the target, if empty, and its
		// Caches folder once nothing else is in it (never the link below).
		os.Remove(diskCacheFolder(r.MountPoint, r.ID))
		os.Remove(caches)
	}
	os.Remove(s.cacheRecordPath(r.ID))
}

// removeFallback removes the target's fallback folder, and the disk's
// fallback folder once no target is left in it (the link below the disk's
// mount point then leads nowhere, and the engine drops that folder at the
// next eject).
func (s *Service) removeFallback(r cacheRecord) {
	keeper.RemoveAll(s.cacheEmpty(r))
	if os.Remove(s.fallbackRoot(r.Disk)) == nil && r.MountPoint != "" {
		// The disk's last target: the link below its mount point leads
		// nowhere now. Gone with it while the disk is away (when it is
		// mounted, the engine keeps the link for the next target).
		if _, err := os.Lstat(filepath.Join(r.MountPoint, ramdisk.FallbackLink)); err == nil && !ramdisk.IsMountPoint(r.MountPoint) {
			s.dropUnusedFallback(ramdisk.Volume{Name: r.Disk, MountPoint: r.MountPoint})
		}
	}
}
