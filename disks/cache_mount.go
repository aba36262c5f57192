package disks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rambar/internal/atomicfile"
	"rambar/ramdisk"

	"golang.org/x/sys/unix"
)

// What mounting and ejecting a disk does to the caches on it (see cache.go).

// withFallback asks the engine to leave the fallback link below the plan's
// mount point, where that folder stays when the disk is gone: under a
// mount root that keeps its folders (Linux), or at a mount point of the
// user's. Every such disk gets it, so any target can be switched onto it
// later; a disk in /Volumes cannot (cacheFallbackFix).
func (s *Service) withFallback(p *ramdisk.Plan, caps ramdisk.Caps) {
	if s.Paths.Data != "" && (caps.KeepsMountPoints || p.Options.MountPoint != "") {
		p.CacheFallback = s.fallbackRoot(p.Name)
	}
}

// cacheMountPoint gives a preset with cache targets, where mount points
// do not stay (macOS /Volumes), a mount point that does: DATA/Volumes/NAME
// (what cacheFallbackFix tells to give by hand, too; its parent is made).
func (s *Service) cacheMountPoint(r *CreateRequest, caps ramdisk.Caps) error {
	if s.Paths.Data == "" || caps.KeepsMountPoints {
		return nil
	}
	dir := s.cacheDir("Volumes")
	if r.Preset != nil && len(r.Preset.Caches) > 0 && r.Options.MountPoint == "" {
		r.Options.MountPoint = filepath.Join(dir, r.Name)
	}
	if filepath.Dir(filepath.Clean(r.Options.MountPoint)) == dir {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", r.Name, err)
		}
	}
	return nil
}

// cacheMount is what RAMBar notes when it mounts a disk whose plan left
// the fallback link: where, and the device of the disk's root, so a later
// 'cache on' knows the disk mounted there now is that one.
type cacheMount struct {
	MountPoint string `json:"mount_point"`
	Dev        uint64 `json:"dev"`
}

func (s *Service) cacheMountPath(disk string) string {
	return s.cacheDir("cache-mounts", strings.ToLower(disk)+".json")
}

// noteMount records (or, for a plan without a fallback, forgets) how v was
// just mounted.
func (s *Service) noteMount(v ramdisk.Volume, p ramdisk.Plan) error {
	path := s.cacheMountPath(v.Name)
	if p.CacheFallback == "" {
		os.Remove(path)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("cache mount record: %w", err)
	}
	b, _ := json.Marshal(cacheMount{MountPoint: v.MountPoint, Dev: devOf(v.MountPoint)})
	if err := atomicfile.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("cache mount record: %w", err)
	}
	return nil
}

// devOf is the device of the file system mounted at dir.
func devOf(dir string) uint64 {
	var st unix.Stat_t
	if unix.Stat(dir, &st) != nil {
		return 0
	}
	return uint64(st.Dev)
}

// fallbackReady reports whether v was mounted by RAMBar with the fallback
// link below its mount point: a target switched onto it can never dangle.
func (s *Service) fallbackReady(v ramdisk.Volume) bool {
	f, err := os.Open(s.cacheMountPath(v.Name))
	if err != nil {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(f, 8<<10))
	f.Close()
	var m cacheMount
	return err == nil && json.Unmarshal(b, &m) == nil && m.MountPoint == v.MountPoint && m.Dev != 0 && m.Dev == devOf(v.MountPoint)
}

// cacheFallbackFix is the refusal of a target onto a disk mounted without
// the fallback link, with the way to mount it with one.
func (s *Service) cacheFallbackFix(v ramdisk.Volume, target string, caps ramdisk.Caps) error {
	fix := fmt.Sprintf("eject it and make it again with RAMBar (rambar eject %s, then rambar create %s SIZE)", v.Name, v.Name)
	if !caps.KeepsMountPoints && !strings.HasPrefix(v.MountPoint, s.cacheDir("Volumes")+"/") {
		fix = fmt.Sprintf("%s goes with the disk: eject it and make it again at a folder that stays (rambar create %s SIZE --mount-point %q)",
			v.MountPoint, v.Name, filepath.Join(s.cacheDir("Volumes"), v.Name))
	}
	return fmt.Errorf("%w: %s: %s was not mounted by this RAMBar with a fallback below its mount point, so a crash or an eject outside RAMBar would leave the target a dangling link; %s",
		ErrCacheRefused, target, v.Name, fix)
}

// cachesToFallback, before v is ejected or reclaimed, points the caches on
// a disk mounted without the fallback link (cacheFallbackFix: by an older
// RAMBar) straight at their fallback folders. A disk with the link needs
// nothing: the path through its mount point falls back by itself.
func (s *Service) cachesToFallback(v ramdisk.Volume) error {
	if s.fallbackReady(v) {
		return nil
	}
	var errs []error
	for _, r := range s.cacheRecords() {
		if s.SameName(r.Disk, v.Name) {
			r.MountPoint = ""
			if err := s.point(&r, nil); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// cachesAway checks the caches of a disk that could not be mounted again,
// when it is not mounted: see cachesGone.
func (s *Service) cachesAway(ctx context.Context, name string) {
	if _, err := s.Find(ctx, name); errors.Is(err, ramdisk.ErrNotFound) {
		s.cachesGone(ramdisk.Volume{Name: name})
	}
}

// cachesGone, after v was ejected (or could not be mounted again), checks
// every cache of it again: one whose mount point lost its fallback link
// (removed, or replaced by something RAMBar refuses to mount over) is
// pointed straight at its fallback folder. The mount record is dropped.
func (s *Service) cachesGone(v ramdisk.Volume) {
	os.Remove(s.cacheMountPath(v.Name))
	used := false
	for _, r := range s.cacheRecords() {
		if s.SameName(r.Disk, v.Name) {
			s.point(&r, nil)
			used = true
		}
	}
	if !used {
		s.dropUnusedFallback(v)
	}
}

// dropUnusedFallback removes the fallback link below v's mount point once
// v is gone and no cache is on it: a folder of the user's (--mount-point)
// keeps nothing of RAMBar's. Only RAMBar's link to this disk's fallback is
// removed (never followed), then that folder if it is empty.
func (s *Service) dropUnusedFallback(v ramdisk.Volume) {
	if v.MountPoint == "" || s.Paths.Data == "" {
		return
	}
	link := filepath.Join(v.MountPoint, ramdisk.FallbackLink)
	if dest, err := os.Readlink(link); err == nil && dest == s.fallbackRoot(v.Name) {
		os.Remove(link)
	}
	os.Remove(s.fallbackRoot(v.Name)) // only if empty
}

// settleCut finishes or undoes the cache steps on disk name a RAMBar was
// stopped in (kill -9 of 'cache on' or 'off'), before the disk is ejected
// or made again: what they made is never left for good.
func (s *Service) settleCut(name string, v *ramdisk.Volume) {
	for _, r := range s.cacheRecords() {
		if strings.EqualFold(r.Disk, name) && r.State != cacheOn && r.Target != TMPDIRKey {
			s.settle(&r, v)
		}
	}
}

// cachesToDisk points every cache of v's name at v, after it was mounted
// (p, the plan it was mounted from: noted for fallbackReady) or after an
// eject was refused (p nil), and empties what apps wrote into their
// fallback folders while it was away. What fails is returned as notes.
func (s *Service) cachesToDisk(v ramdisk.Volume, p *ramdisk.Plan) []string {
	var notes []string
	if p != nil {
		if err := s.noteMount(v, *p); err != nil {
			notes = append(notes, err.Error())
		}
	}
	if folder := s.mirrorDiskOf(v); folder != "" {
		// A Mirror disk's top folder is the folder's: no cache goes there.
		for _, r := range s.cacheRecords() {
			if strings.EqualFold(r.Disk, v.Name) {
				r.MountPoint = "" // straight to its fallback: the disk covers the link below
				if err := s.point(&r, nil); err != nil {
					notes = append(notes, err.Error())
				}
				notes = append(notes, fmt.Sprintf("the cache %s stays on its empty folder: %s mirrors %s now, and caches are kept out of mirrored folders ('rambar cache off %s')",
					r.Target, v.Name, folder, r.Target))
			}
		}
		return notes
	}
	for _, r := range s.cacheRecords() {
		if s.SameName(r.Disk, v.Name) && (r.State == cacheOn || r.Target == TMPDIRKey) {
			if err := s.point(&r, &v); err != nil {
				notes = append(notes, err.Error())
				continue
			}
			if err := s.emptyFallback(r); err != nil {
				notes = append(notes, err.Error())
			}
		}
	}
	return notes
}
