package snapshot

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"rambar/snapstore"
	"rambar/tree"
)

// Save makes root's tree the store's new current snapshot, copying only the
// files whose identity changed since the snapshot the index describes, and
// keeps the newest keepN snapshots. It runs in phases: scan the disk, diff
// the scan against the index, plan the new manifest's entries, copy the
// changed files into a fresh objects folder, look at the disk again (the
// disk is in use: settle.go), write and flush the manifest, commit
// (current names it), write the index, prune.
//
// When the index is exact (see index) and the change is small, the new
// manifest is a delta: it holds only what changed since a full manifest,
// so neither the old tree is read nor the whole new one written. The delta
// on a delta is built by merging the previous delta's changes with the new
// ones, so every delta is one step from its full base.
//
// A save by the disk's change feed (f; nil: none) reads, when f can vouch
// for the disk since its last save, only the folders the feed names
// (tree.Rescan) and compares them with that save's scan, not the whole
// disk with the index; else the disk is walked whole, every folder given
// to the feed, and f follows it from this save on.
func (s *Store) Save(ctx context.Context, root, diskID string, keepN int, progress tree.ProgressFunc, f *Follow) (Result, error) {
	unlock, err := s.Lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	return s.SaveLocked(ctx, root, diskID, keepN, progress, f)
}

// SaveLocked is Save with the store's lock already held.
func (s *Store) SaveLocked(ctx context.Context, root, diskID string, keepN int, progress tree.ProgressFunc, f *Follow) (Result, error) {
	start, before, clock := time.Now(), inUse(), tree.ChangeClock()
	if err := s.Cleanup(); err != nil {
		return Result{}, err
	}
	curID, err := s.Current()
	if err != nil {
		return Result{}, err
	}
	idx := f.index(s, curID)
	if idx != nil && (idx.DiskID != diskID || idx.Snapshot == "") {
		idx = nil
	}
	var hint int
	if idx != nil {
		hint = idx.N
	} else {
		hint = tree.InodesUsed(root) // the disk's file system holds the tree and little else
	}
	var against *snapstore.Index // compared with the scan as it goes
	if idx != nil && curID != "" && idx.Snapshot == curID {
		against = idx
	}
	var last *followed
	var dirty tree.Dirty
	var feed tree.FolderWatch
	if f != nil {
		last, dirty = f.start(curID, against != nil && against.Exact, start)
		feed = f.feed
	}
	mapped := make(chan map[uint64]bool, 1)
	go func() { mapped <- mappedFiles(root) }() // while the scan runs
	resume := pauseCollector(before, hint, idx.Size())
	still := tree.NewStillWatch()
	var sc scanned
	if last != nil {
		sc, err = rescan(root, last, dirty, against, s.Caches, still, f, f.takeSpare())
	} else {
		sc.items, sc.notKept, sc.match, err = scanAgainst(root, hint, against, s.Caches, still, feed)
	}
	resume()
	ls := &liveSave{s: s, root: root, diskID: diskID, curID: curID, idx: idx, mapped: <-mapped, progress: progress, still: still, clock: clock,
		match: sc.match, pre: sc.diff, feed: feed, notKept: sc.notKept, from: sc.from, kept: sc.kept, firsts: sc.firsts, follow: f, scanAt: start}
	if last != nil {
		ls.base, ls.last, ls.dirty = last.index, last, dirty
	}
	defer func() { ls.still.Close() }()
	if err != nil {
		return Result{}, fmt.Errorf("save %s: %w", root, err)
	}
	items, notKept := sc.items, sc.notKept
	dropWALIndexes(root, items, ls.mapped)
	// Nothing changed since the current snapshot was saved or restored:
	// done, without reading a file or even the manifest (but the watched
	// ones: watch.go).
	if sc.same(len(items)) {
		if r, same, err := ls.doneIfUnchanged(&sc, f, last, start); same || err != nil {
			return r, err
		}
	}
	// The scan's own buffers are garbage now; collected before the copy,
	// they do not set the heap's size for the rest of the save (the
	// collector lets it grow to twice what was live at its last run), and
	// what is live gives the save its room (memlimit.go).
	if last == nil {
		runtime.GC()
	}
	mem := limitSaveMemory(before, liveHeap())
	defer mem.done()
	res, err := ls.run(ctx, items)
	if err != nil {
		return Result{}, fmt.Errorf("save %s: %w", root, err)
	}
	if f != nil && ls.committed != nil && res.Snapshot == ls.committed.snapshot {
		f.done(ls.committed, last)
	}
	res.NotKept, res.ByFeed = notKept, last != nil
	if !res.Unchanged {
		if err := s.pruneTo(keepN); err != nil {
			return res, fmt.Errorf("saved %s, but removing old snapshots failed: %w", res.Snapshot, err)
		}
	}
	res.Took = time.Since(start)
	return res, nil
}

// doneIfUnchanged ends a save whose scan found nothing changed since the
// current snapshot was saved or restored (same): done, without reading a
// file or even the manifest (but the watched ones: watch.go).
func (ls *liveSave) doneIfUnchanged(sc *scanned, f *Follow, last *followed, start time.Time) (Result, bool, error) {
	same, watched, err := ls.unchanged(sc.items, sc.watched())
	if err != nil || !same {
		if err != nil {
			err = fmt.Errorf("save %s: %w", ls.root, err)
		}
		return Result{}, false, err
	}
	h, err := ls.s.ReadManifest(ls.curID, false)
	if err != nil {
		return Result{}, false, err
	}
	if f != nil {
		// The index as it is now, when written for items (last's
		// describes last's scan: the next index is encoded whole).
		f.done(&followed{snapshot: ls.curID, items: sc.items, notKept: sc.notKept, watched: watched, index: ls.written, firsts: sc.firsts}, last)
	}
	return Result{Snapshot: ls.curID, Unchanged: true, Files: h.Files, Bytes: h.Bytes, NotKept: sc.notKept, Took: time.Since(start), ByFeed: last != nil, AsOf: start}, true, nil
}

// pruneTo removes old snapshots down to keepN (spaced in time for a store
// saved continuously).
func (s *Store) pruneTo(keepN int) error {
	if s.Spaced {
		return s.PruneSpaced(keepN, time.Now())
	}
	return s.Prune(keepN)
}

// scanAgainst scans root, comparing it with x (nil: none) as it goes; m
// is the match (nil without x). caches: a Caches folder at the top is
// contents (store.caches).
func scanAgainst(root string, hint int, x *snapstore.Index, caches bool, still *tree.StillWatch, feed tree.FolderWatch) (items []tree.Scanned, notKept []tree.NotKept, m *snapstore.IndexMatch, err error) {
	if x != nil {
		m = x.Match()
	}
	items, notKept, err = tree.ScanWith(root, hint, m.Matcher(), tree.Opts{KeepLF: x.Lists("lost+found"), Caches: caches, Still: still, Feed: feed})
	return items, notKept, m, err
}

// ScanMatching is a scan of the disk at root (hint: about how many
// paths to expect) compared with the index x as it goes (nil: none): same
// reports that the paths are exactly x's, without a second pass over the
// scan. An empty lost+found of the file system's is kept when x lists one
// (the user's, merged with it). caches: a Caches folder at the top is
// contents (Store.Caches).
func ScanMatching(root string, hint int, x *snapstore.Index, caches bool) (items []tree.Scanned, notKept []tree.NotKept, same bool, err error) {
	items, notKept, m, err := scanAgainst(root, hint, x, caches, nil, nil)
	return items, notKept, m != nil && m.Matched(len(items)), err
}

// savePlan is what a save writes: the new manifest's entries, and which
// files need their bytes copied.
type savePlan struct {
	// entries are a delta's: the paths changed since its base.
	entries []tree.Entry
	// full, for a full manifest, makes its entries from the scan as the
	// manifest is written, so that a save never holds the whole tree as
	// entries beside the scan.
	full *fullPlan
	// jobs are the files to copy, in pathLess order: items of the full
	// plan's scan, or entries of a delta (see path).
	jobs []copyJob
	// delta, when not nil, makes the manifest a delta: its Base and Removed.
	delta   *snapstore.Manifest
	files   int   // regular files of the whole tree
	bytes   int64 // their bytes (the copied ones' as scanned)
	removed int   // paths gone since the current snapshot

	items []tree.Scanned
	same  []bool  // per item: taken from the snapshot the index describes
	ofJob []int32 // a delta's: the item of each job
	// gone are paths the plan found gone from the disk (a delta reads its
	// entries' metadata as it plans).
	gone []string
	// reshaped: a delta adds or removes paths, changes a path's kind or
	// a hard link (treecheck.go: checked against its base).
	reshaped bool
}

// scanned is job k's path as scanned.
func (p *savePlan) scanned(k int) *tree.Scanned {
	if p.full != nil {
		return &p.items[p.jobs[k].ref]
	}
	return &p.items[p.ofJob[k]]
}

// fullPlan is a full manifest to be made from a scan: each item's entry
// is the one of the snapshot the index describes when its identity is
// unchanged (reuse), else made from its scan and what readExtras reads.
type fullPlan struct {
	root  string
	items []tree.Scanned
	prev  []tree.Entry
	reuse []int32 // per item: 1 + its entry in prev, or 0 (nil: none)
	// extras are the symlink targets and xattrs of the items not reused,
	// by path (those with none left out).
	extras map[string]tree.Extra
}

// plan decides the new manifest's entries from the scan: a delta when the
// index is exact and the change small, else the whole tree, reusing the
// entries of the snapshot the index describes for unchanged paths. The
// files w watches whose contents changed are taken as changed (w, when
// not nil, learns the index's sums and takes this round's); so is the top
// folder, whose times and mode are saved at every save. m, when not nil,
// is the scan's match with idx (diffIndex goes on where it stopped); pre,
// when not nil, is the diff itself (a rescan by the feed made it).
// Files whose identity differs from the index's only by ctime and whose
// bytes are the saved ones name their saved object (samebytes.go; the
// compare's reads are counted in progress; memo, when not nil, keeps what
// it found for the save's later rounds).
func (s *Store) plan(root, curID string, idx *snapstore.Index, items []tree.Scanned, w *watch, m *snapstore.IndexMatch, pre *snapstore.IndexDiff, memo sameMemo, progress tree.ProgressFunc) (*savePlan, error) {
	var d snapstore.IndexDiff
	if pre != nil {
		d = *pre // a rescan by the feed diffed it with the scan the index holds
	} else if d2, ok := snapstore.DiffIndex(idx, items, m); ok {
		d = d2
	} else {
		d, idx = d2, nil // damaged: trusted for nothing
	}
	var force []int
	if w != nil {
		w.old = d.Watched
		var err error
		if force, err = w.changed(root, items); err != nil {
			return nil, err
		}
	}
	if len(items) > 0 {
		force = append(force, 0)
	}
	for _, i := range force {
		if d.Same[i] {
			d.Same[i], d.Changed = false, d.Changed+1
		}
	}
	same, prev := s.sameBytes(root, idx, items, &d, w, memo, progress)
	var delta *snapstore.Manifest // the previous changes a new delta builds on
	if idx != nil && idx.Exact && idx.Version >= 4 {
		delta = s.deltaBase(idx.Snapshot, d.Changed+len(d.Gone))
	}
	if delta != nil {
		return planDelta(root, delta, items, d, same)
	}
	return s.planFull(root, curID, idx, items, d, prev, same), nil
}

// copiesData reports whether a save reading it fresh copies item it's
// bytes: a regular file that is not a second link.
func copiesData(it *tree.Scanned) bool {
	return tree.KindOf(it.Id.Mode) == tree.KindFile && it.HardLink == 0
}

// kept reports whether entry e of an earlier snapshot has what a new one
// needs of it: a file its bytes (an object, or a link to another).
func kept(e *tree.Entry) bool { return e.Kind != tree.KindFile || !e.Obj.None() || e.HardLink != "" }

// deltaBase returns what a delta on snapshot base builds on: base's own
// changes when it is a delta, none when it is a full manifest. It returns
// nil (write a full manifest) when base cannot be read or the delta, with
// about n more changes, would pass the store's delta limit.
func (s *Store) deltaBase(base string, n int) *snapstore.Manifest {
	h, err := s.ReadFile(base, true, false)
	if err != nil {
		return nil
	}
	prev := &snapstore.Manifest{Header: snapstore.Header{Base: base}}
	if h.Base != "" {
		if prev, err = s.ReadFile(base, true, true); err != nil {
			return nil
		}
		if h, err = s.ReadFile(prev.Base, true, false); err != nil || h.Base != "" {
			return nil
		}
	}
	if len(prev.Entries)+len(prev.Removed)+n > s.Limit(h.Files) {
		return nil
	}
	return prev
}
