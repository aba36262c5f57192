package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"time"

	"rambar/internal/atomicfile"
)

// save makes root's tree the store's new current snapshot, copying only the
// files whose identity changed since the snapshot the index describes, and
// keeps the newest keepN snapshots. It runs in phases: scan the disk, diff
// the scan against the index, plan the new manifest's entries, copy the
// changed files into a fresh objects folder, write and flush the manifest,
// commit (current names it), write the index, prune.
//
// When the index is exact (see index) and the change is small, the new
// manifest is a delta: it holds only what changed since a full manifest,
// so neither the old tree is read nor the whole new one written. The delta
// on a delta is built by merging the previous delta's changes with the new
// ones, so every delta is one step from its full base.
func (s *store) save(ctx context.Context, root, diskID string, keepN int, progress ProgressFunc) (Result, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	return s.saveLocked(ctx, root, diskID, keepN, progress)
}

// saveLocked is save with the store's lock already held.
func (s *store) saveLocked(ctx context.Context, root, diskID string, keepN int, progress ProgressFunc) (Result, error) {
	start := time.Now()
	if err := s.cleanup(); err != nil {
		return Result{}, err
	}
	curID, err := s.current()
	if err != nil {
		return Result{}, err
	}
	idx := s.loadIndex()
	if idx != nil && (idx.DiskID != diskID || idx.Snapshot == "") {
		idx = nil
	}
	items, notKept, err := scanAll(root)
	if err != nil {
		return Result{}, fmt.Errorf("save %s: %w", root, err)
	}
	// Nothing changed since the current snapshot was saved or restored:
	// done, without reading a file or even the manifest.
	if idx != nil && curID != "" && idx.Snapshot == curID && idx.matches(items) {
		h, err := s.readManifest(curID, false)
		if err != nil {
			return Result{}, err
		}
		return Result{Snapshot: curID, Unchanged: true, Files: h.Files, Bytes: h.Bytes, NotKept: notKept, Took: time.Since(start)}, nil
	}
	// The scan's own buffers are garbage now; collected before the copy,
	// they do not set the heap's size for the rest of the save (the
	// collector lets it grow to twice what was live at its last run).
	runtime.GC()
	p, err := s.plan(root, curID, idx, items)
	if err != nil {
		return Result{}, fmt.Errorf("save %s: %w", root, err)
	}
	id := newID(time.Now(), curID)
	res, err := s.write(ctx, root, id, p, progress)
	if err != nil {
		return Result{}, fmt.Errorf("save %s: %w", root, err)
	}
	_ = s.writeIndex(indexOf(id, diskID, items))
	res.NotKept = notKept
	if err := s.prune(keepN); err != nil {
		return res, fmt.Errorf("saved %s, but removing old snapshots failed: %w", id, err)
	}
	res.NotKept, res.Took = notKept, time.Since(start)
	return res, nil
}

// savePlan is what a save writes: the new manifest's entries, and which
// files need their bytes copied.
type savePlan struct {
	// entries are a delta's: the paths changed since its base.
	entries []Entry
	// full, for a full manifest, makes its entries from the scan as the
	// manifest is written, so that a save never holds the whole tree as
	// entries beside the scan.
	full *fullPlan
	// jobs are the files to copy, in pathLess order; in a delta job k is
	// entries[at[k]].
	jobs []copyJob
	at   []int32
	// delta, when not nil, makes the manifest a delta: its Base and Removed.
	delta   *manifest
	files   int   // regular files of the whole tree
	bytes   int64 // their bytes (the copied ones' as scanned)
	removed int   // paths gone since the current snapshot
}

// fullPlan is a full manifest to be made from a scan: each item's entry
// is the one of the snapshot the index describes when its identity is
// unchanged (reuse), else read from the disk as it is written.
type fullPlan struct {
	root  string
	items []scanned
	prev  []Entry
	reuse []int32 // per item: 1 + its entry in prev, or 0 (nil: none)
}

// plan decides the new manifest's entries from the scan: a delta when the
// index is exact and the change small, else the whole tree, reusing the
// entries of the snapshot the index describes for unchanged paths.
func (s *store) plan(root, curID string, idx *index, items []scanned) (*savePlan, error) {
	d := diffIndex(idx, items)
	var delta *manifest // the previous changes a new delta builds on
	if idx != nil && idx.Exact {
		delta = s.deltaBase(idx.Snapshot, d.changed+len(d.gone))
	}
	if delta != nil {
		return planDelta(root, delta, items, d)
	}
	return s.planFull(root, curID, idx, items, d), nil
}

// entryAt reads a scanned path's metadata for a save.
func entryAt(root string, it scanned) (Entry, error) {
	e, err := entryOf(root, it)
	if errors.Is(err, fs.ErrNotExist) {
		return e, fmt.Errorf("%s changed during the save, try again: %w", it.rel, err)
	}
	return e, err
}

// planDelta plans a delta on delta (the previous delta's changes, or none
// on a full manifest): the changed items read fresh, merged with delta's.
func planDelta(root string, delta *manifest, items []scanned, d indexDiff) (*savePlan, error) {
	p := &savePlan{delta: delta, removed: len(d.gone)}
	fresh := make([]Entry, 0, d.changed)
	for i, it := range items {
		if kindOf(it.id.Mode) == KindFile {
			p.files++
			p.bytes += it.id.Size
		}
		if d.same[i] {
			continue
		}
		e, err := entryAt(root, it)
		if err != nil {
			return nil, err
		}
		fresh = append(fresh, e)
	}
	p.entries, delta.Removed = mergeDelta(delta, fresh, d.gone)
	for i := range p.entries {
		if e := &p.entries[i]; e.Kind == KindFile && e.Obj.none() && e.HardLink == "" {
			p.jobs = append(p.jobs, copyJob{path: e.Path, size: e.Size, sparse: e.sparse})
			p.at = append(p.at, int32(i))
		}
	}
	return p, nil
}

// planFull plans a full manifest: every item, taken from the snapshot the
// index describes when its identity is unchanged, else read fresh when
// the manifest is written; the files read fresh are copied.
func (s *store) planFull(root, curID string, idx *index, items []scanned, d indexDiff) *savePlan {
	f := &fullPlan{root: root, items: items}
	var prev *manifest
	if idx != nil {
		if m, err := s.tree(idx.Snapshot, true); err == nil {
			prev, f.prev, f.reuse = m, m.Entries, make([]int32, len(items))
		}
	}
	p := &savePlan{full: f}
	n := 0
	for i := range items {
		if it := &items[i]; copiesData(it) && !(prev != nil && d.same[i]) {
			n++
		}
	}
	p.jobs = make([]copyJob, 0, n)
	pi := 0
	for i := range items {
		it := &items[i]
		if kindOf(it.id.Mode) == KindFile {
			p.files++
			p.bytes += it.id.Size
		}
		if d.same[i] && prev != nil {
			for pi < len(prev.Entries) && pathLess(prev.Entries[pi].Path, it.rel) {
				pi++
			}
			if pi < len(prev.Entries) && prev.Entries[pi].Path == it.rel && kept(&prev.Entries[pi]) {
				f.reuse[i] = int32(pi + 1)
				continue
			}
		}
		if copiesData(it) {
			p.jobs = append(p.jobs, copyJob{path: it.rel, size: it.id.Size, sparse: it.sparse()})
		}
	}
	if prev != nil && prev.ID == curID {
		p.removed = removedFrom(prev.Entries, items)
	} else if curID != "" {
		if cur, err := s.manifest(curID); err == nil {
			p.removed = removedFrom(cur.Entries, items)
		}
	}
	return p
}

// copiesData reports whether a save reading it fresh copies item it's
// bytes: a regular file that is not a second link.
func copiesData(it *scanned) bool { return kindOf(it.id.Mode) == KindFile && it.hardLink == "" }

// kept reports whether entry e of an earlier snapshot has what a new one
// needs of it: a file its bytes (an object, or a link to another).
func kept(e *Entry) bool { return e.Kind != KindFile || !e.Obj.none() || e.HardLink != "" }

// write carries out plan p as snapshot id: copies the files into
// objects/id, writes and flushes the manifest, and commits it. On failure
// nothing of id is left.
func (s *store) write(ctx context.Context, root, id string, p *savePlan, progress ProgressFunc) (Result, error) {
	objDir := s.path("objects", id)
	if err := os.MkdirAll(objDir, 0o700); err != nil {
		return Result{}, noSpace(fmt.Errorf("make %s: %w", objDir, err))
	}
	planned := int64(0)
	for i := range p.jobs {
		planned += p.jobs[i].size
	}
	copied, ext, err := s.copyObjects(ctx, root, id, p.jobs, progress)
	if err == nil {
		err = s.writeSnapshot(p.stream(id, p.bytes-planned+copied, ext))
	}
	if err == nil {
		// The commit point: from here the new tree is the current one.
		if err = s.commit(id); err != nil {
			os.Remove(s.path("snapshots", id+".snap"))
		}
	}
	if err != nil {
		os.RemoveAll(objDir)
		return Result{}, err
	}
	return Result{Snapshot: id, Files: p.files, Bytes: p.bytes - planned + copied,
		CopiedFiles: len(p.jobs), CopiedBytes: copied, Removed: p.removed}, nil
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
		for k := range p.jobs {
			e := &p.entries[p.at[k]]
			e.Obj, e.Size, e.Extents = p.jobs[k].obj(id), p.jobs[k].size, ext[k]
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
	var used []objName
	for _, r := range f.reuse {
		if r > 0 && !f.prev[r-1].Obj.none() {
			used = append(used, f.prev[r-1].Obj)
		}
	}
	refs := map[string][]uint32{}
	for _, o := range used {
		refs[o.Save] = append(refs[o.Save], o.Num)
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
		var e Entry // one for all: put does not keep it
		for i := range f.items {
			if f.reuse != nil && f.reuse[i] > 0 {
				if err := put(&f.prev[f.reuse[i]-1]); err != nil {
					return err
				}
				continue
			}
			var err error
			if e, err = entryAt(f.root, f.items[i]); err != nil {
				return err
			}
			if copiesData(&f.items[i]) {
				if k >= len(jobs) || jobs[k].path != e.Path {
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

// deltaBase returns what a delta on snapshot base builds on: base's own
// changes when it is a delta, none when it is a full manifest. It returns
// nil (write a full manifest) when base cannot be read or the delta, with
// about n more changes, would pass the store's delta limit.
func (s *store) deltaBase(base string, n int) *manifest {
	h, err := s.readFile(base, true, false)
	if err != nil {
		return nil
	}
	prev := &manifest{header: header{Base: base}}
	if h.Base != "" {
		if prev, err = s.readFile(base, true, true); err != nil {
			return nil
		}
		if h, err = s.readFile(prev.Base, true, false); err != nil || h.Base != "" {
			return nil
		}
	}
	if len(prev.Entries)+len(prev.Removed)+n > s.limit(h.Files) {
		return nil
	}
	return prev
}
