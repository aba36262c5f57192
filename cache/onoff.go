package cache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

// Cache record states.
const (
	cacheOn          = StateOn
	cacheSwitchingOn = "switching-on"
	cacheGoingOff    = "switching-off"
)

// step tells the test hook Step that name was reached.
func (c *Caches) step(name string) {
	if c.Step != nil {
		c.Step(name)
	}
}

// On switches target onto the mounted disk name. The target's old
// contents are moved aside (kept for 'off'); a folder the system needs to
// log in is refused unless force. A target already on that disk is
// repaired and reported as on.
func (c *Caches) On(ctx context.Context, name string, t Target, force bool) (State, error) {
	if c.Data == "" {
		return State{}, ErrNoData
	}
	_, already := c.cacheRecordFor(t.Path)
	if t.Path != TMPDIRKey && !already {
		var mps []string
		if ds, err := c.Disks.List(ctx); err == nil {
			for _, d := range ds {
				mps = append(mps, d.MountPoint)
			}
		}
		if err := checkCacheTarget(t.Path, os.Getenv("HOME"), c.Data, mps, force); err != nil {
			return State{}, err
		}
		if err := c.refuseMirrored(t.Path); err != nil {
			return State{}, err
		}
	}
	v, err := c.Disks.Find(ctx, name)
	if err != nil {
		return State{}, err
	}
	if !already {
		if err := c.refuseMirrorDisk(v, t.Path); err != nil {
			return State{}, err
		}
	}
	release, err := c.Disks.Lock(ctx, v.Name, "switching a cache")
	if err != nil {
		return State{}, err
	}
	defer release()
	if r, ok := c.cacheRecordFor(t.Path); ok {
		if !c.Disks.SameName(r.Disk, v.Name) {
			return State{}, i18n.Errorf("%w: %s is on the RAM disk %s already; 'rambar cache off %s %s' first", ErrRefused, t.Path, r.Disk, r.Disk, t.Key)
		}
		if err := c.settle(&r, &v); err != nil {
			return State{}, err
		}
		return c.cacheState(r, &v), nil
	}
	if !c.fallbackReady(v) {
		return State{}, c.cacheFallbackFix(v, t.Path, c.Disks.Caps())
	}
	id := ID(t.Path)
	for _, d := range []string{"caches", "cache-links", "cache-empty", "cache-saved"} {
		if err := os.MkdirAll(c.cacheDir(d), 0o700); err != nil {
			return State{}, fmt.Errorf("cache: %w", err)
		}
	}
	// The record first: whatever the next steps make (the disk's folder,
	// the fallback folder, the links), a kill -9 leaves a record that the
	// next command settles (finishes or undoes), never orphans.
	r := cacheRecord{ID: id, Disk: v.Name, Target: t.Path, Label: t.Label, State: cacheSwitchingOn, MountPoint: v.MountPoint}
	if err := c.writeCacheRecord(r); err != nil {
		return State{}, err
	}
	c.step("recorded")
	if err := c.point(&r, &v); err != nil {
		c.undoOn(r)
		return State{}, err
	}
	c.step("pointed")
	if t.Path != TMPDIRKey {
		if err := c.switchTarget(r); err != nil {
			return State{}, err
		}
	}
	if err := c.settle(&r, &v); err != nil {
		return State{}, err
	}
	return c.cacheState(r, &v), nil
}

// switchTarget puts the link in the target's place in one atomic step: a
// link made beside it is exchanged with it (the old folder is then beside
// it, moved to DATA/cache-saved by settle); a target that does not exist is
// simply the new link.
func (c *Caches) switchTarget(r cacheRecord) error {
	pending := pendingPath(r.Target, r.ID)
	if st, err := os.Lstat(pending); err == nil && st.Mode()&os.ModeSymlink == 0 {
		return i18n.Errorf("%w: %s is in the way (move it away first)", ErrRefused, pending)
	}
	os.Remove(pending)
	if err := os.Symlink(c.cacheLink(r.ID), pending); err != nil {
		return fmt.Errorf("cache %s: %w", r.Target, err)
	}
	c.step("link made")
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
	c.step("exchanged")
	return nil
}

// isOurLink reports whether path is the link to the record's stable link.
func (c *Caches) isOurLink(path, id string) bool {
	dest, err := os.Readlink(path)
	return err == nil && dest == c.cacheLink(id)
}

// settle finishes or undoes whatever step of on or off was cut short, then
// points the link where the disk is (v, or the mounted disk of the
// record's name when v is nil).
func (c *Caches) settle(r *cacheRecord, v *ramdisk.Volume) error {
	pending := pendingPath(r.Target, r.ID)
	switch {
	case r.Target == TMPDIRKey:
		r.State = cacheOn
	case r.State == cacheGoingOff:
		return c.finishOff(*r)
	case r.State == cacheSwitchingOn && !c.isOurLink(r.Target, r.ID):
		// Cut short before the target was switched: undo.
		c.undoOn(*r)
		return i18n.Errorf("cache %s: switching it on was interrupted and has been undone; run it again", r.Target)
	case r.State == cacheSwitchingOn:
		// The target is the link: move the old folder beside it to the saved place.
		saved := c.cacheSaved(r.ID)
		r.Saved = ""
		if st, err := os.Lstat(pending); err == nil && st.IsDir() {
			r.Saved = pending
			if err := os.Rename(pending, saved); err == nil {
				r.Saved = saved
			}
		} else if st, err := os.Lstat(saved); err == nil && st.IsDir() {
			r.Saved = saved
		}
		c.step("saved")
		r.State = cacheOn
	}
	if err := c.writeCacheRecord(*r); err != nil {
		return err
	}
	if v == nil {
		if d, err := c.Disks.Find(context.Background(), r.Disk); err == nil {
			v = &d
		}
	}
	return c.point(r, v)
}

// Off puts target back as it was before 'on': its old contents (or
// nothing, when there was no folder) in its place, in one atomic step. A
// target that someone changed since is left alone and refused. TMPDIR's
// link stays, pointing at its empty folder, so a shell that still has it
// set never sees a dangling path.
func (c *Caches) Off(ctx context.Context, target string) error {
	_, err := c.OffTold(ctx, target)
	return err
}

// OffTold is Off, with what the user must hear besides: where a
// folder found in the target's place was kept (a Mirror write-back that set
// RAMBar's link aside as a conflict copy, by an older RAMBar: the link is
// found there and put back, and that folder moved beside the target).
func (c *Caches) OffTold(ctx context.Context, target string) (string, error) {
	r, ok := c.cacheRecordFor(target)
	if !ok {
		return "", i18n.Errorf("cache %s: %w (not on a RAM disk)", target, ramdisk.ErrNotFound)
	}
	release, err := c.Disks.Lock(ctx, r.Disk, "switching a cache")
	if err != nil {
		return "", err
	}
	defer release()
	if r.Target == TMPDIRKey {
		r.MountPoint = ""
		if err := c.point(&r, nil); err != nil {
			return "", err
		}
		return "", os.Remove(c.cacheRecordPath(r.ID))
	}
	if r.State == cacheSwitchingOn {
		if err := c.settle(&r, nil); err != nil {
			return "", err
		}
	}
	var told string
	if r.State != cacheGoingOff && !c.isOurLink(r.Target, r.ID) {
		aside := c.linkSetAside(r)
		if aside == "" {
			return "", i18n.Errorf("%w: %s is no longer RAMBar's link (something replaced it: by hand, or another tool); left as it is", ErrRefused, r.Target)
		}
		if told, err = c.linkBack(r, aside); err != nil {
			return "", err
		}
	}
	r.State = cacheGoingOff
	if err := c.writeCacheRecord(r); err != nil {
		return told, err
	}
	c.step("off recorded")
	return told, c.finishOff(r)
}

// linkSetAside finds RAMBar's link to the target set aside beside it as a
// Mirror write-back's conflict copy (NAME.rambar-conflict-…); "" if none.
func (c *Caches) linkSetAside(r cacheRecord) string {
	dir, base := filepath.Split(r.Target)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if p := filepath.Join(dir, e.Name()); strings.HasPrefix(e.Name(), base+".rambar-conflict-") && c.isOurLink(p, r.ID) {
			return p
		}
	}
	return ""
}

// linkBack moves what holds the target's place (the folder the write-back
// put there) beside it, kept, and the set-aside link back into the place,
// each by one rename: a kill -9 between them leaves the target missing,
// which the next 'off' finishes the same way.
func (c *Caches) linkBack(r cacheRecord, aside string) (string, error) {
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
func (c *Caches) finishOff(r cacheRecord) error {
	pending := pendingPath(r.Target, r.ID)
	if c.isOurLink(r.Target, r.ID) {
		if r.Saved != "" {
			if r.Saved != pending {
				if _, err := os.Lstat(r.Saved); err == nil {
					if err := os.Rename(r.Saved, pending); err != nil {
						return fmt.Errorf("cache %s: put back %s: %w", r.Target, r.Saved, err)
					}
				}
			}
			c.step("back beside")
			if st, err := os.Lstat(pending); err == nil && st.IsDir() {
				if err := exchange(pending, r.Target); err != nil {
					return fmt.Errorf("cache %s: swap back: %w", r.Target, err)
				}
			}
			c.step("exchanged back")
		} else if err := os.Remove(r.Target); err != nil {
			return fmt.Errorf("cache %s: remove the link: %w", r.Target, err)
		}
	}
	if c.isOurLink(r.Target, r.ID) {
		// The saved contents are gone (removed by hand): never leave the link
		// to dangle; an empty folder takes its place.
		os.Remove(pending)
		if err := os.Mkdir(pending, 0o755); err == nil {
			if err := exchange(pending, r.Target); err != nil {
				return fmt.Errorf("cache %s: swap back: %w", r.Target, err)
			}
			os.Remove(pending)
		}
		if c.isOurLink(r.Target, r.ID) {
			return i18n.Errorf("cache %s: could not put a folder back in place of the link", r.Target)
		}
		r.Saved = "missing"
	}
	if c.isOurLink(pending, r.ID) {
		os.Remove(pending)
	}
	c.step("link gone")
	os.Remove(c.cacheLink(r.ID))
	c.removeFallback(r)
	if err := os.Remove(c.cacheRecordPath(r.ID)); err != nil {
		return fmt.Errorf("cache %s: %w", r.Target, err)
	}
	if r.Saved == "missing" {
		return i18n.Errorf("cache %s: its saved contents were gone, so it is an empty folder now", r.Target)
	}
	return nil
}

// undoOn undoes an 'on' that did not switch the target: the link made
// beside it, RAMBar's links and folders (the fallback, the disk's empty
// folder for it), then the record, last.
func (c *Caches) undoOn(r cacheRecord) {
	pending := pendingPath(r.Target, r.ID)
	if st, err := os.Lstat(pending); err == nil && st.Mode()&os.ModeSymlink != 0 {
		os.Remove(pending)
	}
	os.Remove(c.cacheLink(r.ID))
	c.removeFallback(r)
	caches := filepath.Join(r.MountPoint, ramdisk.FallbackLink)
	if st, err := os.Lstat(caches); r.MountPoint != "" && err == nil && st.IsDir() {
		// The disk is mounted: its folder for the target, if empty, and its
		// Caches folder once nothing else is in it (never the link below).
		os.Remove(diskCacheFolder(r.MountPoint, r.ID))
		os.Remove(caches)
	}
	os.Remove(c.cacheRecordPath(r.ID))
}

// removeFallback removes the target's fallback folder, and the disk's
// fallback folder once no target is left in it (the link below the disk's
// mount point then leads nowhere, and the engine drops that folder at the
// next eject).
func (c *Caches) removeFallback(r cacheRecord) {
	keeper.RemoveAll(c.fallbackOf(r))
	if os.Remove(c.FallbackRoot(r.Disk)) == nil && r.MountPoint != "" {
		// The disk's last target: the link below its mount point leads
		// nowhere now. Gone with it while the disk is away (when it is
		// mounted, the engine keeps the link for the next target).
		if _, err := os.Lstat(filepath.Join(r.MountPoint, ramdisk.FallbackLink)); err == nil && !ramdisk.IsMountPoint(r.MountPoint) {
			c.dropUnusedFallback(ramdisk.Volume{Name: r.Disk, MountPoint: r.MountPoint})
		}
	}
}
