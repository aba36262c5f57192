package mirror

import (
	"fmt"
	"os"
	"slices"
	"time"

	"rambar/internal/atomicfile"
)

// Writing a save's manifest once its files are copied.

// path is the path of a job's file (its ref).
func (p *savePlan) path(ref int32) string {
	if p.full != nil {
		return p.full.items[ref].rel
	}
	return p.entries[ref].Path
}

// manifestStream is a manifest to be written as it is encoded: its
// header (Refs filled in), its n entries, given in order by each, and its
// removed paths.
type manifestStream struct {
	header
	n       int
	each    func(put func(*Entry) error) error
	removed []string
}

// streamOf is manifest m, whole, to be written.
func streamOf(m *manifest) *manifestStream {
	ms := &manifestStream{header: m.header, n: len(m.Entries), removed: m.Removed}
	ms.Refs = refsOf(m.Entries)
	ms.each = func(put func(*Entry) error) error {
		for i := range m.Entries {
			if err := put(&m.Entries[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return ms
}

// stream is the snapshot id that p makes once its files are copied (ext:
// the copied sparse files' extents by job), its files holding bytes bytes.
func (p *savePlan) stream(id string, bytes int64, ext map[int][]Extent) *manifestStream {
	h := header{ID: id, Created: time.Now().UTC(), Files: p.files, Bytes: bytes}
	if p.full == nil {
		pl := &placer{id: id}
		for k := range p.jobs {
			j := &p.jobs[k]
			e := &p.entries[j.ref]
			e.Obj, e.Size, e.Extents = pl.obj(j, ext[k]), j.size, ext[k]
		}
		h.Base = p.delta.Base
		return streamOf(&manifest{header: h, Entries: p.entries, Removed: p.delta.Removed})
	}
	h.Refs = p.full.refs(id, p.jobs)
	return &manifestStream{header: h, n: len(p.full.items), each: p.full.each(id, p.jobs, ext)}
}

// refs lists, per save, the numbers of the objects the manifest uses:
// those of the entries reused and the new ones (save id) of jobs.
func (f *fullPlan) refs(id string, jobs []copyJob) map[string][]uint32 {
	refs := map[string][]uint32{}
	for _, r := range f.reuse {
		if r == 0 {
			continue
		}
		if o := &f.prev[r-1].Obj; !o.none() {
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
// they are, the others read from the disk now, a copied file with its
// object (jobs, in the same order; ext: extents by job).
func (f *fullPlan) each(id string, jobs []copyJob, ext map[int][]Extent) func(put func(*Entry) error) error {
	return func(put func(*Entry) error) error {
		k := 0
		pl := &placer{id: id}
		var e Entry // one for all: put does not keep it
		for i := range f.items {
			if f.reuse != nil && f.reuse[i] > 0 {
				if err := put(&f.prev[f.reuse[i]-1]); err != nil {
					return err
				}
				continue
			}
			var err error
			if e, err = entryAt(f.root, f.items, i); err != nil {
				return err
			}
			if copiesData(&f.items[i]) {
				if k >= len(jobs) || jobs[k].ref != int32(i) {
					return fmt.Errorf("save plan out of step at %s", e.Path)
				}
				e.Obj, e.Size, e.Extents = pl.obj(&jobs[k], ext[k]), jobs[k].size, ext[k]
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
func (s *store) writeSnapshot(ms *manifestStream) error {
	if err := os.MkdirAll(s.path("snapshots"), 0o700); err != nil {
		return noSpace(err)
	}
	err := s.streamManifest(&ms.header, ms.n, ms.each, ms.removed, syncEachFile)
	if err == nil {
		err = flushTree(s.dir, nil)
		if syncEachFile && err == nil {
			err = atomicfile.SyncDir(s.path("objects", ms.ID))
		}
	}
	if err != nil {
		os.Remove(s.path("snapshots", ms.ID+".snap"))
	}
	return err
}
