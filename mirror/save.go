package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

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

// savePlan is what a save writes: the new manifest's entries, and which of
// them need their bytes copied.
type savePlan struct {
	entries []Entry  // the whole tree, or a delta's changes
	toCopy  []*Entry // the files to copy, pointing into entries
	// delta, when not nil, makes the manifest a delta: its Base and Removed.
	delta   *manifest
	files   int   // regular files of the whole tree
	bytes   int64 // their bytes (toCopy's as scanned)
	removed int   // paths gone since the current snapshot
}

// plan builds the new manifest's entries from the scan: a delta when the
// index is exact and the change small, else the whole tree, reusing the
// entries of the snapshot the index describes for unchanged paths.
func (s *store) plan(root, curID string, idx *index, items []scanned) (*savePlan, error) {
	d := diffIndex(idx, items)
	var delta *manifest // the previous changes a new delta builds on
	if idx != nil && idx.Exact {
		delta = s.deltaBase(idx.Snapshot, d.changed+len(d.gone))
	}
	var p *savePlan
	var err error
	if delta != nil {
		p, err = planDelta(root, delta, items, d)
	} else {
		p, err = s.planFull(root, curID, idx, items, d)
	}
	if err != nil {
		return nil, err
	}
	for i := range p.entries {
		if e := &p.entries[i]; e.Kind == KindFile && e.Obj.none() && e.HardLink == "" {
			p.toCopy = append(p.toCopy, e)
		}
	}
	return p, nil
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
	return p, nil
}

// planFull plans a full manifest: every item, taken from the snapshot the
// index describes when its identity is unchanged, else read fresh.
func (s *store) planFull(root, curID string, idx *index, items []scanned, d indexDiff) (*savePlan, error) {
	var prev *manifest
	if idx != nil {
		if m, err := s.tree(idx.Snapshot, true); err == nil {
			prev = m
		}
	}
	p := &savePlan{entries: make([]Entry, len(items))}
	pi := 0
	for i, it := range items {
		if d.same[i] && prev != nil {
			for pi < len(prev.Entries) && pathLess(prev.Entries[pi].Path, it.rel) {
				pi++
			}
			if pi < len(prev.Entries) && prev.Entries[pi].Path == it.rel {
				p.entries[i] = prev.Entries[pi]
				continue
			}
		}
		e, err := entryAt(root, it)
		if err != nil {
			return nil, err
		}
		p.entries[i] = e
	}
	for _, e := range p.entries {
		if e.Kind == KindFile {
			p.files++
			p.bytes += e.Size
		}
	}
	if prev != nil && prev.ID == curID {
		p.removed = removed(prev.Entries, p.entries)
	} else if curID != "" {
		if cur, err := s.manifest(curID); err == nil {
			p.removed = removed(cur.Entries, p.entries)
		}
	}
	return p, nil
}

// write carries out plan p as snapshot id: copies the files into
// objects/id, writes and flushes the manifest, and commits it. On failure
// nothing of id is left.
func (s *store) write(ctx context.Context, root, id string, p *savePlan, progress ProgressFunc) (Result, error) {
	objDir := s.path("objects", id)
	if err := os.MkdirAll(objDir, 0o700); err != nil {
		return Result{}, noSpace(fmt.Errorf("make %s: %w", objDir, err))
	}
	planned := int64(0)
	for _, e := range p.toCopy {
		planned += e.Size
	}
	copied, err := s.copyObjects(ctx, root, id, p.toCopy, progress)
	if err == nil {
		err = s.writeSnapshot(p.manifest(id, p.bytes-planned+copied))
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
		CopiedFiles: len(p.toCopy), CopiedBytes: copied, Removed: p.removed}, nil
}

// manifest is the snapshot id that p makes, its files holding bytes bytes.
func (p *savePlan) manifest(id string, bytes int64) *manifest {
	m := &manifest{header: header{ID: id, Created: time.Now().UTC(), Files: p.files, Bytes: bytes}, Entries: p.entries}
	if p.delta != nil {
		m.Base, m.Removed = p.delta.Base, p.delta.Removed
	}
	return m
}

// copyObjects copies the files of toCopy from root into objects/id, the
// small ones packed together (full saves and deltas alike: a few large
// files written sequentially instead of one per file), setting each
// entry's Obj and Size (the bytes kept; a file growing under us is seen
// again next save). It returns the bytes copied.
func (s *store) copyObjects(ctx context.Context, root, id string, toCopy []*Entry, progress ProgressFunc) (int64, error) {
	var total int64
	for _, e := range toCopy {
		total += e.Size
	}
	src, err := openTree(root)
	if err != nil {
		return 0, err
	}
	defer src.close()
	objs, err := openTree(s.path("objects", id))
	if err != nil {
		return 0, err
	}
	defer objs.close()
	clone := sameDev(root, objs.dir)
	m := newMeter(progress, "saving", total, len(toCopy))
	packs, single := packGroups(toCopy)
	err = pool(len(packs)+len(single), workers, func(k int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := strconv.Itoa(k)
		if k < len(packs) {
			n, err := writePack(src, objs, id, uint32(k), packs[k])
			m.add(n, len(packs[k]))
			return err
		}
		e := single[k-len(packs)]
		if err := copyObject(src, objs, e, name, clone); err != nil {
			return err
		}
		e.Obj = objName{Save: id, Num: uint32(k)}
		m.add(e.Size, 1)
		return nil
	})
	m.done()
	if err != nil {
		return 0, err
	}
	var copied int64
	for _, e := range toCopy {
		copied += e.Size
	}
	return copied, nil
}

// copyObject copies the file e of the tree root into a new object name in
// the folder objs (a clone where they share a file system that can, unless
// it is sparse: its holes are left out), fsyncing it when syncEachFile. It
// sets e.Size (the bytes kept; a file growing under us is seen again next
// save) and, for a sparse file, e.Extents.
func copyObject(root, objs *dirTree, e *Entry, name string, clone bool) error {
	rel := e.Path
	in, err := root.openFile(rel)
	if err != nil {
		return err
	}
	defer unix.Close(in)
	out, cloned, err := objs.create(name, 0o600, in, clone && !e.sparse)
	if err != nil {
		return err
	}
	if cloned {
		var st unix.Stat_t
		if err = unix.Fstat(out, &st); err == nil {
			e.Size, e.Extents = st.Size, nil
		}
	} else {
		_, err = saveData(out, in, e, clone)
	}
	if err == nil && (syncEachFile || e.Size >= pushSize) {
		err = pushFile(out)
	}
	if cerr := unix.Close(out); err == nil {
		err = cerr
	}
	if err != nil {
		return noSpace(fmt.Errorf("copy %s to %s: %w", root.path(rel), objs.path(name), err))
	}
	return nil
}

// writeSnapshot writes manifest m and flushes it with its objects: on
// Linux one syncfs covers both; elsewhere each file was fsynced as written
// and the manifest is written with fsyncs. On failure the manifest is
// removed.
func (s *store) writeSnapshot(m *manifest) error {
	if err := os.MkdirAll(s.path("snapshots"), 0o700); err != nil {
		return noSpace(err)
	}
	err := s.writeManifest(m, syncEachFile)
	if err == nil {
		err = flushTree(s.dir, nil)
		if syncEachFile && err == nil {
			err = atomicfile.SyncDir(s.path("objects", m.ID))
		}
	}
	if err != nil {
		os.Remove(s.path("snapshots", m.ID+".snap"))
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
