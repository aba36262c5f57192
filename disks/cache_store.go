package disks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"rambar/internal/atomicfile"
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

// CacheState is one target as 'rambar cache list' and the menu show it.
type CacheState struct {
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

func (s *Service) cacheDir(kind string, parts ...string) string {
	return filepath.Join(append([]string{s.Paths.Data, kind}, parts...)...)
}

func (s *Service) cacheRecordPath(id string) string { return s.cacheDir("caches", id+".json") }
func (s *Service) cacheLink(id string) string       { return s.cacheDir("cache-links", id) }
func (s *Service) cacheEmpty(r cacheRecord) string {
	return filepath.Join(s.fallbackRoot(r.Disk), r.ID)
}
func (s *Service) cacheSaved(id string) string { return s.cacheDir("cache-saved", id) }
func diskCacheFolder(mp, id string) string     { return filepath.Join(mp, ramdisk.FallbackLink, id) }

// fallbackRoot is where the fallback link below a disk's mount point leads
// (Plan.CacheFallback): DATA/cache-empty/NAME, one folder per target in it.
func (s *Service) fallbackRoot(disk string) string {
	return s.cacheDir("cache-empty", strings.ToLower(disk))
}

// pendingPath is the sibling of the target that holds its other half while
// it is exchanged.
func pendingPath(target, id string) string { return target + ".rambar-" + id }

func (s *Service) writeCacheRecord(r cacheRecord) error {
	b, _ := json.Marshal(r)
	if err := atomicfile.WriteFile(s.cacheRecordPath(r.ID), b, 0o600); err != nil {
		return fmt.Errorf("cache %s: record: %w", r.Target, err)
	}
	return nil
}

// cacheRecords reads every record; a damaged one is skipped (it is RAMBar's
// file, but read as untrusted: bounded, its fields checked).
func (s *Service) cacheRecords() []cacheRecord {
	ents, err := os.ReadDir(s.cacheDir("caches"))
	if err != nil {
		return nil
	}
	var out []cacheRecord
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		f, err := os.Open(filepath.Join(s.cacheDir("caches"), e.Name()))
		if err != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(f, 64<<10))
		f.Close()
		var r cacheRecord
		if err != nil || json.Unmarshal(b, &r) != nil || r.ID+".json" != e.Name() || ramdisk.ValidateName(r.Disk) != nil ||
			(r.Target != TMPDIRKey && (!filepath.IsAbs(r.Target) || cacheID(r.Target) != r.ID)) {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Target < out[j].Target })
	return out
}

func (s *Service) cacheRecordFor(target string) (cacheRecord, bool) {
	for _, r := range s.cacheRecords() {
		if r.Target == target {
			return r, true
		}
	}
	return cacheRecord{}, false
}

// pointLink makes DATA/cache-links/ID point at dest, atomically.
func (s *Service) pointLink(id, dest string) error {
	link := s.cacheLink(id)
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
func (s *Service) point(r *cacheRecord, v *ramdisk.Volume) error {
	empty := s.cacheEmpty(*r)
	if err := os.MkdirAll(empty, 0o700); err != nil {
		return fmt.Errorf("cache fallback %s: %w", empty, err)
	}
	if v != nil {
		if err := makeFolders(v.MountPoint, []string{ramdisk.FallbackLink + "/" + r.ID}); err != nil {
			return err
		}
		if r.MountPoint != v.MountPoint {
			r.MountPoint = v.MountPoint
			if err := s.writeCacheRecord(*r); err != nil {
				return err
			}
		}
		return s.pointLink(r.ID, diskCacheFolder(v.MountPoint, r.ID))
	}
	if r.MountPoint != "" && s.fallbackBelow(r.MountPoint, r.Disk) {
		return s.pointLink(r.ID, diskCacheFolder(r.MountPoint, r.ID))
	}
	return s.pointLink(r.ID, empty)
}

// fallbackBelow reports whether the folder mp (no disk mounted on it) holds
// the fallback link to the disk's fallback folder. It is only read.
func (s *Service) fallbackBelow(mp, disk string) bool {
	dest, err := os.Readlink(filepath.Join(mp, ramdisk.FallbackLink))
	return err == nil && dest == s.fallbackRoot(disk)
}

// emptyFallback removes what apps wrote into a target's fallback folder
// while its disk was away (a cache: it is rebuilt on the disk). It runs
// once the disk is mounted again, when nothing reaches the folder through
// the target; entries are removed through descriptors beneath the folder,
// never followed, and a mount point inside it is left
// (keeper.EmptyFolder).
func (s *Service) emptyFallback(r cacheRecord) error {
	if err := keeper.EmptyFolder(s.cacheEmpty(r), nil); err != nil {
		return fmt.Errorf("cache %s: empty the fallback: %w", r.Target, err)
	}
	return nil
}

// cacheState describes a record now.
func (s *Service) cacheState(r cacheRecord, v *ramdisk.Volume) CacheState {
	st := CacheState{Target: r.Target, Label: r.Label, Disk: r.Disk, Link: s.cacheLink(r.ID), Saved: r.Saved}
	if dest, err := os.Readlink(st.Link); err == nil && v != nil && dest == diskCacheFolder(v.MountPoint, r.ID) {
		st.OnDisk = true
	}
	return st
}

// Caches lists the targets switched onto RAM disks, each settled first.
func (s *Service) Caches(ctx context.Context) []CacheState {
	var out []CacheState
	for _, r := range s.cacheRecords() {
		ok := true
		var vp *ramdisk.Volume
		if v, err := s.Find(ctx, r.Disk); err == nil {
			vp = &v
		}
		if r.State != cacheOn && r.Target != TMPDIRKey {
			if s.repairOne(ctx, r) != nil {
				continue
			}
			if r, ok = s.cacheRecordFor(r.Target); !ok {
				continue
			}
		}
		out = append(out, s.cacheState(r, vp))
	}
	return out
}

// RepairCaches finishes cut-short steps and points every target's link at
// its disk when that is mounted; when it is not (a disk that went without
// RAMBar: a crash, a reboot, Finder's eject), through its mount point while
// the fallback link waits below it (nothing to change), else straight at
// its empty folder. Up and the menu run it first; errors are per target
// and reported, not fatal.
func (s *Service) RepairCaches(ctx context.Context) []error {
	var errs []error
	for _, r := range s.cacheRecords() {
		if err := s.repairOne(ctx, r); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// repairOne settles one record under its disk's lock, so it never points
// a link back at a disk another RAMBar is ejecting.
func (s *Service) repairOne(ctx context.Context, r cacheRecord) error {
	release, err := s.lock(ctx, r.Disk, "repairing its caches")
	if err != nil {
		return fmt.Errorf("cache %s: %w", r.Target, err)
	}
	defer release()
	var vp *ramdisk.Volume
	if v, err := s.Find(ctx, r.Disk); err == nil {
		vp = &v
	}
	return s.settle(&r, vp)
}
