package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"time"
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
	start, before := time.Now(), inUse()
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
	var hint int
	if idx != nil {
		hint = idx.n
	} else {
		hint = inodesUsed(root) // the disk's file system holds the tree and little else
	}
	var against *index // compared with the scan as it goes
	if idx != nil && curID != "" && idx.Snapshot == curID {
		against = idx
	}
	resume := pauseCollector(before, hint)
	items, notKept, same, err := scanMatching(root, hint, against)
	resume()
	if err != nil {
		return Result{}, fmt.Errorf("save %s: %w", root, err)
	}
	// Nothing changed since the current snapshot was saved or restored:
	// done, without reading a file or even the manifest.
	if same {
		h, err := s.readManifest(curID, false)
		if err != nil {
			return Result{}, err
		}
		return Result{Snapshot: curID, Unchanged: true, Files: h.Files, Bytes: h.Bytes, NotKept: notKept, Took: time.Since(start)}, nil
	}
	// The scan's own buffers are garbage now; collected before the copy,
	// they do not set the heap's size for the rest of the save (the
	// collector lets it grow to twice what was live at its last run), and
	// what is live gives the save its room (memlimit.go).
	runtime.GC()
	mem := limitSaveMemory(before, liveHeap())
	defer mem.done()
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
	// jobs are the files to copy, in pathLess order: items of the full
	// plan's scan, or entries of a delta (see path).
	jobs []copyJob
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
	d, ok := diffIndex(idx, items)
	if !ok {
		idx = nil // damaged: trusted for nothing
	}
	var delta *manifest // the previous changes a new delta builds on
	if idx != nil && idx.Exact {
		delta = s.deltaBase(idx.Snapshot, d.changed+len(d.gone))
	}
	if delta != nil {
		return planDelta(root, delta, items, d)
	}
	return s.planFull(root, curID, idx, items, d), nil
}

// entryAt reads scanned path items[i]'s metadata for a save.
func entryAt(root string, items []scanned, i int) (Entry, error) {
	e, err := entryOf(root, items, i)
	if errors.Is(err, fs.ErrNotExist) {
		return e, fmt.Errorf("%s changed during the save, try again: %w", items[i].rel, err)
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
		e, err := entryAt(root, items, i)
		if err != nil {
			return nil, err
		}
		fresh = append(fresh, e)
	}
	p.entries, delta.Removed = mergeDelta(delta, fresh, d.gone)
	for i := range p.entries {
		if e := &p.entries[i]; e.Kind == KindFile && e.Obj.none() && e.HardLink == "" {
			p.jobs = append(p.jobs, copyJob{ref: int32(i), size: e.Size, sparse: e.sparse})
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
			p.jobs = append(p.jobs, copyJob{ref: int32(i), size: it.id.Size, sparse: it.sparse()})
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
func copiesData(it *scanned) bool { return kindOf(it.id.Mode) == KindFile && it.hardLink == 0 }

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
	copied, ext, err := s.copyObjects(ctx, root, id, p.jobs, p.path, progress)
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
