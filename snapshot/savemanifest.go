package snapshot

import (
	"fmt"
	"os"
	"slices"
	"time"

	"rambar/snapstore"
	"rambar/tree"

	"rambar/internal/atomicfile"
)

// Writing a save's manifest once its files are copied.

// path is the path of a job's file (its ref).
func (p *savePlan) path(ref int32) string {
	if p.full != nil {
		return p.full.items[ref].Rel
	}
	return p.entries[ref].Path
}

// manifestStream is a manifest to be written as it is encoded: its
// header (Refs filled in), its n entries, given in order by each, and its
// removed paths; check, when set, checks each entry as it is written
// (treecheck.go).
type manifestStream struct {
	snapstore.Header
	n       int
	each    func(put func(*tree.Entry) error) error
	removed []string
	check   *snapstore.TreeCheck
}

// streamOf is manifest m, whole, to be written, its tree checked.
func streamOf(m *snapstore.Manifest) *manifestStream {
	ms := &manifestStream{Header: m.Header, n: len(m.Entries), removed: m.Removed}
	ms.Refs = snapstore.RefsOf(m.Entries)
	ms.each = func(put func(*tree.Entry) error) error {
		for i := range m.Entries {
			if err := put(&m.Entries[i]); err != nil {
				return err
			}
		}
		return nil
	}
	ms.check = snapstore.NewTreeCheck(m.ID, m.Base == "", snapstore.LinkTargets(m.Entries))
	return ms
}

// stream is the snapshot id that p makes once its files are copied (ext:
// the copied sparse files' extents by job), its files holding bytes bytes.
// Its entries are checked as they are written; a delta's tree too, first,
// when it changes the tree's shape (treecheck.go).
func (s *Store) stream(p *savePlan, id string, bytes int64, ext map[int][]tree.Extent) (*manifestStream, error) {
	h := snapstore.Header{ID: id, Created: time.Now().UTC(), Files: p.files, Bytes: bytes}
	if p.full == nil {
		for k := range p.jobs {
			j := &p.jobs[k]
			e := &p.entries[j.ref]
			e.Obj, e.Size, e.Extents = j.obj(id), j.size, ext[k]
		}
		h.Base = p.delta.Base
		m := &snapstore.Manifest{Header: h, Entries: p.entries, Removed: p.delta.Removed}
		if p.reshaped {
			if err := s.CheckDeltaTree(id, m, snapstore.ScanTargets(p.items)); err != nil {
				return nil, err
			}
		}
		return streamOf(m), nil
	}
	h.Refs = p.full.refs(id, p.jobs)
	return &manifestStream{Header: h, n: len(p.full.items), each: p.full.each(id, p.jobs, ext),
		check: snapstore.NewTreeCheck(id, true, snapstore.ScanTargets(p.items))}, nil
}

// refs lists, per save, the numbers of the objects the manifest uses:
// those of the entries reused and the new ones (save id) of jobs.
func (f *fullPlan) refs(id string, jobs []copyJob) map[string][]uint32 {
	refs := map[string][]uint32{}
	for _, r := range f.reuse {
		if r == 0 {
			continue
		}
		if o := &f.prev[r-1].Obj; !o.None() {
			refs[o.Save] = append(refs[o.Save], o.Num)
		}
	}
	if len(jobs) > 0 {
		nums := make([]uint32, len(jobs))
		for k := range jobs {
			nums[k] = jobs[k].num
		}
		refs[id] = nums
	}
	for s, nums := range refs {
		slices.Sort(nums)
		refs[s] = slices.Compact(nums)
	}
	return refs
}

// each gives the full manifest's entries in order to put: reused ones as
// they are, the others made from the scan and the extras read, a copied
// file with its object (jobs, in the same order; ext: extents by job).
// Nothing is read from the disk.
func (f *fullPlan) each(id string, jobs []copyJob, ext map[int][]tree.Extent) func(put func(*tree.Entry) error) error {
	return func(put func(*tree.Entry) error) error {
		k := 0
		for i := range f.items {
			if f.reuse != nil && f.reuse[i] > 0 {
				if err := put(&f.prev[f.reuse[i]-1]); err != nil {
					return err
				}
				continue
			}
			e := tree.ScanEntry(f.items, i)
			x := f.extras[e.Path]
			e.Link, e.Xattr = x.Link, x.Xattr
			if copiesData(&f.items[i]) {
				if k >= len(jobs) || jobs[k].ref != int32(i) {
					return fmt.Errorf("save plan out of step at %s", e.Path)
				}
				e.Obj, e.Size, e.Extents = jobs[k].obj(id), jobs[k].size, ext[k]
				k++
			}
			if err := put(&e); err != nil {
				return err
			}
		}
		return nil
	}
}

// writeSnapshot writes manifest ms and flushes it with its objects: on
// Linux one syncfs covers both; elsewhere each file was fsynced as written
// and the manifest is written with fsyncs. On failure the manifest is
// removed.
func (s *Store) writeSnapshot(ms *manifestStream) error {
	if err := os.MkdirAll(s.Path("snapshots"), 0o700); err != nil {
		return tree.NoSpace(err)
	}
	if ms.check != nil {
		if err := snapstore.CheckHeader(&ms.Header); err != nil {
			return fmt.Errorf("write snapshot %s: %w: %v", ms.ID, snapstore.ErrBadManifest, err)
		}
		if err := ms.check.Removed(ms.removed); err != nil {
			return err
		}
		if ms.Base == "" && len(ms.removed) > 0 {
			return fmt.Errorf("write snapshot %s: %w: a full manifest with removed paths", ms.ID, snapstore.ErrBadManifest)
		}
		each := ms.each
		ms.each = func(put func(*tree.Entry) error) error {
			err := each(func(e *tree.Entry) error {
				if err := ms.check.Add(e); err != nil {
					return err
				}
				return put(e)
			})
			if err == nil && ms.check.Tree && ms.check.N == 0 {
				err = fmt.Errorf("write snapshot %s: %w: the tree has no root folder", ms.ID, snapstore.ErrBadManifest)
			}
			return err
		}
	}
	err := s.StreamManifest(&ms.Header, ms.n, ms.each, ms.removed, tree.SyncEachFile)
	if err == nil {
		err = tree.FlushTree(s.Dir, nil)
		if tree.SyncEachFile && err == nil {
			err = atomicfile.SyncDir(s.Path("objects", ms.ID))
		}
	}
	if err != nil {
		os.Remove(s.Path("snapshots", ms.ID+".snap"))
	}
	return err
}
