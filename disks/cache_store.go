package disks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"rambar/internal/atomicfile"
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
func (s *Service) cacheEmpty(id string) string      { return s.cacheDir("cache-empty", id) }
func (s *Service) cacheSaved(id string) string      { return s.cacheDir("cache-saved", id) }
func diskCacheFolder(mp, id string) string          { return filepath.Join(mp, "Caches", id) }

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

// toFallback points the link at its empty folder, emptied first when the
// link does not point there now.
func (s *Service) toFallback(id string) error {
	empty := s.cacheEmpty(id)
	if cur, err := os.Readlink(s.cacheLink(id)); err != nil || cur != empty {
		os.RemoveAll(empty)
	}
	if err := os.MkdirAll(empty, 0o700); err != nil {
		return fmt.Errorf("cache fallback %s: %w", empty, err)
	}
	return s.pointLink(id, empty)
}

// toDisk points the link at the disk's folder, made if need be.
func (s *Service) toDisk(id string, v ramdisk.Volume) error {
	if err := makeFolders(v.MountPoint, []string{"Caches/" + id}); err != nil {
		return err
	}
	return s.pointLink(id, diskCacheFolder(v.MountPoint, id))
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
// its disk when that is mounted, at its empty folder when not (a disk that
// went without RAMBar: a crash, a reboot, Finder's eject). Up and the menu
// run it first; errors are per target and reported, not fatal.
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

// cachesToFallback points every cache on v at its empty folder: eject and
// reclaim call it before the disk goes.
func (s *Service) cachesToFallback(v ramdisk.Volume) error {
	var errs []error
	for _, r := range s.cacheRecords() {
		if strings.EqualFold(r.Disk, v.Name) {
			if err := s.toFallback(r.ID); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// cachesToDisk points every cache of v's name at v: after it is mounted.
// What fails is returned as notes.
func (s *Service) cachesToDisk(v ramdisk.Volume) []string {
	var notes []string
	for _, r := range s.cacheRecords() {
		if strings.EqualFold(r.Disk, v.Name) && (r.State == cacheOn || r.Target == TMPDIRKey) {
			if err := s.toDisk(r.ID, v); err != nil {
				notes = append(notes, err.Error())
			}
		}
	}
	return notes
}
