package cache

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"rambar/internal/record"
	"rambar/keeper"
	"rambar/ramdisk"
)

// The records, folders and links of caches on RAM disks (see cache.go).

// cacheRecord is what is kept about one target.
type cacheRecord struct {
	ID     string `json:"id"`
	Disk   string `json:"disk"`
	Target string `json:"target"` // the folder, or TMPDIRKey
	Label  string `json:"label"`
	State  string `json:"state"`
	// Saved is where the target's old contents are; "" when it did not exist.
	Saved string `json:"saved"`
	// MountPoint is where the disk was mounted when last seen: the link
	// leads through it, to the disk or, below it, to the fallback.
	MountPoint string `json:"mount_point,omitempty"`
}

// State is one target as 'rambar cache list' and the menu show it.
type State struct {
	Target string `json:"target"`
	Label  string `json:"label"`
	Disk   string `json:"disk"`
	// Link is the path that always resolves (what TMPDIR is set to).
	Link string `json:"link"`
	// OnDisk is true while the link points at the mounted disk.
	OnDisk bool `json:"on_disk"`
	// Saved is where the target's old contents wait for 'off'.
	Saved string `json:"saved,omitempty"`
}

func (c *Caches) cacheDir(kind string, parts ...string) string {
	return filepath.Join(append([]string{c.Data, kind}, parts...)...)
}

func (c *Caches) cacheRecordPath(id string) string { return c.cacheDir("caches", id+".json") }
func (c *Caches) cacheLink(id string) string       { return c.cacheDir("cache-links", id) }
func (c *Caches) fallbackOf(r cacheRecord) string {
	return filepath.Join(c.FallbackRoot(r.Disk), r.ID)
}
func (c *Caches) cacheSaved(id string) string { return c.cacheDir("cache-saved", id) }
func diskCacheFolder(mp, id string) string    { return filepath.Join(mp, ramdisk.FallbackLink, id) }

// FallbackRoot is where the fallback link below a disk's mount point leads
// (Plan.CacheFallback): DATA/cache-empty/NAME, one folder per target in it.
func (c *Caches) FallbackRoot(disk string) string {
	return c.cacheDir("cache-empty", strings.ToLower(disk))
}

// pendingPath is the sibling of the target that holds its other half while
// it is exchanged.
func pendingPath(target, id string) string { return target + ".rambar-" + id }

// journal is the step journal of on and off (internal/record), one record
// per target: DATA/caches/ID.json.
func (c *Caches) journal() record.Log[cacheRecord] {
	k := record.Kind{ByID: true}
	if c.Data != "" {
		k.Dir = c.cacheDir("caches")
	}
	return record.Log[cacheRecord]{Kind: k, Op: "cache",
		Key:  func(r *cacheRecord) string { return r.ID },
		Step: func(r *cacheRecord) string { return r.State }}
}

func (c *Caches) writeCacheRecord(r cacheRecord) error {
	if err := c.journal().Note(r); err != nil {
		return fmt.Errorf("cache %s: record: %w", r.Target, err)
	}
	return nil
}

// cacheRecords reads every record; a damaged one is skipped (it is RAMBar's
// file, but read as untrusted: bounded, its fields checked).
func (c *Caches) cacheRecords() []cacheRecord {
	rs, paths := c.journal().All()
	var out []cacheRecord
	for i, r := range rs {
		if filepath.Base(paths[i]) != r.ID+".json" || ramdisk.ValidateName(r.Disk) != nil ||
			(r.Target != TMPDIRKey && (!filepath.IsAbs(r.Target) || ID(r.Target) != r.ID)) {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Target < out[j].Target })
	return out
}

// Pending lists the steps of on and off a stopped RAMBar left cut short
// (the next cache command, 'rambar up' or the menu settles them): Key is
// the disk, Path the target.
func (c *Caches) Pending() []record.Pending {
	var out []record.Pending
	for _, r := range c.cacheRecords() {
		if r.State != cacheOn && r.Target != TMPDIRKey {
			out = append(out, record.Pending{Op: "cache", Key: r.Disk, Step: r.State, Path: r.Target})
		}
	}
	return out
}

func (c *Caches) cacheRecordFor(target string) (cacheRecord, bool) {
	for _, r := range c.cacheRecords() {
		if r.Target == target {
			return r, true
		}
	}
	return cacheRecord{}, false
}

// pointLink makes DATA/cache-links/ID point at dest, atomically.
func (c *Caches) pointLink(id, dest string) error {
	link := c.cacheLink(id)
	if cur, err := os.Readlink(link); err == nil && cur == dest {
		return nil
	}
	tmp := link + ".new"
	os.Remove(tmp)
	if err := os.Symlink(dest, tmp); err != nil {
		return fmt.Errorf("cache link: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cache link: %w", err)
	}
	return nil
}

// point makes the record's link lead where its disk is: onto the disk's
// folder while v is mounted (made if need be, and the record told the
// mount point); while it is not, through the mount point as long as the
// fallback link waits below it (the way a crash leaves it, so nothing
// changes), else straight to the fallback folder. The fallback folder is
// made either way: every path of the chain ends in a folder that exists.
func (c *Caches) point(r *cacheRecord, v *ramdisk.Volume) error {
	empty := c.fallbackOf(*r)
	if err := os.MkdirAll(empty, 0o700); err != nil {
		return fmt.Errorf("cache fallback %s: %w", empty, err)
	}
	if v != nil {
		if err := keeper.MakeFolders(v.MountPoint, []string{ramdisk.FallbackLink + "/" + r.ID}); err != nil {
			return err
		}
		if r.MountPoint != v.MountPoint {
			r.MountPoint = v.MountPoint
			if err := c.writeCacheRecord(*r); err != nil {
				return err
			}
		}
		return c.pointLink(r.ID, diskCacheFolder(v.MountPoint, r.ID))
	}
	if r.MountPoint != "" && c.fallbackBelow(r.MountPoint, r.Disk) {
		return c.pointLink(r.ID, diskCacheFolder(r.MountPoint, r.ID))
	}
	return c.pointLink(r.ID, empty)
}

// fallbackBelow reports whether the folder mp (no disk mounted on it) holds
// the fallback link to the disk's fallback folder. It is only read.
func (c *Caches) fallbackBelow(mp, disk string) bool {
	dest, err := os.Readlink(filepath.Join(mp, ramdisk.FallbackLink))
	return err == nil && dest == c.FallbackRoot(disk)
}

// emptyFallback removes what apps wrote into a target's fallback folder
// while its disk was away (a cache: it is rebuilt on the disk). It runs
// once the disk is mounted again, when nothing reaches the folder through
// the target; entries are removed through descriptors beneath the folder,
// never followed, and a mount point inside it is left
// (keeper.EmptyFolder).
func (c *Caches) emptyFallback(r cacheRecord) error {
	if err := keeper.EmptyFolder(c.fallbackOf(r), nil); err != nil {
		return fmt.Errorf("cache %s: empty the fallback: %w", r.Target, err)
	}
	return nil
}

// cacheState describes a record now.
func (c *Caches) cacheState(r cacheRecord, v *ramdisk.Volume) State {
	st := State{Target: r.Target, Label: r.Label, Disk: r.Disk, Link: c.cacheLink(r.ID), Saved: r.Saved}
	if dest, err := os.Readlink(st.Link); err == nil && v != nil && dest == diskCacheFolder(v.MountPoint, r.ID) {
		st.OnDisk = true
	}
	return st
}

// Caches lists the targets switched onto RAM disks, each settled first.
func (c *Caches) List(ctx context.Context) []State {
	var out []State
	for _, r := range c.cacheRecords() {
		ok := true
		var vp *ramdisk.Volume
		if v, err := c.Disks.Find(ctx, r.Disk); err == nil {
			vp = &v
		}
		if r.State != cacheOn && r.Target != TMPDIRKey {
			if c.repairOne(ctx, r) != nil {
				continue
			}
			if r, ok = c.cacheRecordFor(r.Target); !ok {
				continue
			}
		}
		out = append(out, c.cacheState(r, vp))
	}
	return out
}

// Repair finishes cut-short steps and points every target's link at
// its disk when that is mounted; when it is not (a disk that went without
// RAMBar: a crash, a reboot, Finder's eject), through its mount point while
// the fallback link waits below it (nothing to change), else straight at
// its empty folder. Up and the menu run it first; errors are per target
// and reported, not fatal.
func (c *Caches) Repair(ctx context.Context) []error {
	var errs []error
	for _, r := range c.cacheRecords() {
		if err := c.repairOne(ctx, r); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// repairOne settles one record under its disk's lock, so it never points
// a link back at a disk another RAMBar is ejecting.
func (c *Caches) repairOne(ctx context.Context, r cacheRecord) error {
	release, err := c.Disks.Lock(ctx, r.Disk, "repairing its caches")
	if err != nil {
		return fmt.Errorf("cache %s: %w", r.Target, err)
	}
	defer release()
	var vp *ramdisk.Volume
	if v, err := c.Disks.Find(ctx, r.Disk); err == nil {
		vp = &v
	}
	return c.settle(&r, vp)
}
