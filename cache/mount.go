package cache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rambar/i18n"
	"rambar/internal/record"
	"rambar/ramdisk"

	"golang.org/x/sys/unix"
)

// What mounting and ejecting a disk does to the caches on it (see cache.go).

// WithFallback asks the engine to leave the fallback link below the plan's
// mount point, where that folder stays when the disk is gone: under a
// mount root that keeps its folders (Linux), or at a mount point of the
// user's. Every such disk gets it, so any target can be switched onto it
// later; a disk in /Volumes cannot (cacheFallbackFix).
func (c *Caches) WithFallback(p *ramdisk.Plan, caps ramdisk.Caps) {
	if c.Data != "" && (caps.KeepsMountPoints || p.Options.MountPoint != "") {
		p.CacheFallback = c.FallbackRoot(p.Name)
	}
}

// MountPointFor gives disk name, made from preset (nil: none) with
// options o, where mount points do not stay (macOS /Volumes) and the
// preset has cache targets, a mount point that does: DATA/Volumes/NAME
// (what cacheFallbackFix tells to give by hand, too; its parent is made).
func (c *Caches) MountPointFor(name string, preset *ramdisk.Preset, o *ramdisk.VolumeOptions, caps ramdisk.Caps) error {
	if c.Data == "" || caps.KeepsMountPoints {
		return nil
	}
	dir := c.cacheDir("Volumes")
	if preset != nil && len(preset.Caches) > 0 && o.MountPoint == "" {
		o.MountPoint = filepath.Join(dir, name)
	}
	if filepath.Dir(filepath.Clean(o.MountPoint)) == dir {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
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

// mounts is the kind of those records: DATA/cache-mounts/KEY.json, KEY the
// disk's name by the one rule (internal/record); an older RAMBar kept them
// under the name in lower case, still read.
func (c *Caches) mounts() record.Kind {
	k := record.Kind{Names: record.Platform, Legacy: strings.ToLower, Limit: 8 << 10}
	if c.Data != "" {
		k.Dir = c.cacheDir("cache-mounts")
	}
	return k
}

// noteMount records (or, for a plan without a fallback, forgets) how v was
// just mounted.
func (c *Caches) noteMount(v ramdisk.Volume, p ramdisk.Plan) error {
	if p.CacheFallback == "" {
		c.mounts().Remove(v.Name)
		return nil
	}
	if err := c.mounts().Write(v.Name, cacheMount{MountPoint: v.MountPoint, Dev: devOf(v.MountPoint)}); err != nil {
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
func (c *Caches) fallbackReady(v ramdisk.Volume) bool {
	var m cacheMount
	_, ok := c.mounts().Load(v.Name, &m)
	return ok && m.MountPoint == v.MountPoint && m.Dev != 0 && m.Dev == devOf(v.MountPoint)
}

// cacheFallbackFix is the refusal of a target onto a disk mounted without
// the fallback link, with the way to mount it with one.
func (c *Caches) cacheFallbackFix(v ramdisk.Volume, target string, caps ramdisk.Caps) error {
	if !caps.KeepsMountPoints && !strings.HasPrefix(v.MountPoint, c.cacheDir("Volumes")+"/") {
		return i18n.Errorf("%w: %s: %s was not mounted by this RAMBar with a fallback below its mount point, so a crash or an eject outside RAMBar "+
			"would leave the target a dangling link; %s goes with the disk: eject it and make it again at a folder that stays (rambar create %s SIZE --mount-point %q)",
			ErrRefused, target, v.Name, v.MountPoint, v.Name, filepath.Join(c.cacheDir("Volumes"), v.Name))
	}
	return i18n.Errorf("%w: %s: %s was not mounted by this RAMBar with a fallback below its mount point, so a crash or an eject outside RAMBar "+
		"would leave the target a dangling link; eject it and make it again with RAMBar (rambar eject %s, then rambar create %s SIZE)",
		ErrRefused, target, v.Name, v.Name, v.Name)
}

// ToFallback, before v is ejected or reclaimed, points the caches on
// a disk mounted without the fallback link (cacheFallbackFix: by an older
// RAMBar) straight at their fallback folders. A disk with the link needs
// nothing: the path through its mount point falls back by itself.
func (c *Caches) ToFallback(v ramdisk.Volume) error {
	if c.fallbackReady(v) {
		return nil
	}
	var errs []error
	for _, r := range c.cacheRecords() {
		if c.Disks.SameName(r.Disk, v.Name) {
			r.MountPoint = ""
			if err := c.point(&r, nil); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Away checks the caches of a disk that could not be mounted again,
// when it is not mounted: see Gone.
func (c *Caches) Away(ctx context.Context, name string) {
	if _, err := c.Disks.Find(ctx, name); errors.Is(err, ramdisk.ErrNotFound) {
		c.Gone(ramdisk.Volume{Name: name})
	}
}

// Gone, after v was ejected (or could not be mounted again), checks
// every cache of it again: one whose mount point lost its fallback link
// (removed, or replaced by something RAMBar refuses to mount over) is
// pointed straight at its fallback folder. The mount record is dropped.
func (c *Caches) Gone(v ramdisk.Volume) {
	c.mounts().Remove(v.Name)
	used := false
	for _, r := range c.cacheRecords() {
		if c.Disks.SameName(r.Disk, v.Name) {
			c.point(&r, nil)
			used = true
		}
	}
	if !used {
		c.dropUnusedFallback(v)
	}
}

// dropUnusedFallback removes the fallback link below v's mount point once
// v is gone and no cache is on it: a folder of the user's (--mount-point)
// keeps nothing of RAMBar's. Only RAMBar's link to this disk's fallback is
// removed (never followed), then that folder if it is empty; and then the
// mount point RAMBar made under its mount root, as an eject does with a
// disk that never had a cache (its eject kept it for the link).
func (c *Caches) dropUnusedFallback(v ramdisk.Volume) {
	if v.MountPoint == "" || c.Data == "" {
		return
	}
	link := filepath.Join(v.MountPoint, ramdisk.FallbackLink)
	if dest, err := os.Readlink(link); err == nil && dest == c.FallbackRoot(v.Name) {
		os.Remove(link)
	}
	os.Remove(c.FallbackRoot(v.Name)) // only if empty
	if c.Disks != nil && !ramdisk.IsMountPoint(v.MountPoint) {
		c.Disks.DropMountPoint(context.Background(), v.Name)
	}
}

// SettleCut finishes or undoes the cache steps on disk name a RAMBar was
// stopped in (kill -9 of 'cache on' or 'off'), before the disk is ejected
// or made again: what they made is never left for good.
func (c *Caches) SettleCut(name string, v *ramdisk.Volume) {
	for _, r := range c.cacheRecords() {
		if c.Disks.SameName(r.Disk, name) && r.State != cacheOn && r.Target != TMPDIRKey {
			c.settle(&r, v)
		}
	}
}

// ToDisk points every cache of v's name at v, after it was mounted
// (p, the plan it was mounted from: noted for fallbackReady) or after an
// eject was refused (p nil), and empties what apps wrote into their
// fallback folders while it was away. What fails is returned as notes.
func (c *Caches) ToDisk(v ramdisk.Volume, p *ramdisk.Plan) []ramdisk.Said {
	var notes []ramdisk.Said
	if p != nil {
		if err := c.noteMount(v, *p); err != nil {
			notes = append(notes, ramdisk.Plain(err.Error()))
		}
	}
	if folder := c.mirrorDiskOf(v); folder != "" {
		// A Mirror disk's top folder is the folder's: no cache goes there.
		for _, r := range c.cacheRecords() {
			if c.Disks.SameName(r.Disk, v.Name) {
				r.MountPoint = "" // straight to its fallback: the disk covers the link below
				if err := c.point(&r, nil); err != nil {
					notes = append(notes, ramdisk.Plain(err.Error()))
				}
				notes = append(notes, ramdisk.Sayf("the cache %s stays on its empty folder: %s mirrors %s now, and caches are kept out of mirrored folders ('rambar cache off %s')",
					r.Target, v.Name, folder, r.Target))
			}
		}
		return notes
	}
	for _, r := range c.cacheRecords() {
		if c.Disks.SameName(r.Disk, v.Name) && (r.State == cacheOn || r.Target == TMPDIRKey) {
			if err := c.point(&r, &v); err != nil {
				notes = append(notes, ramdisk.Plain(err.Error()))
				continue
			}
			if err := c.emptyFallback(r); err != nil {
				notes = append(notes, ramdisk.Plain(err.Error()))
			}
		}
	}
	return notes
}
