package snapshot

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"rambar/snapstore"
	"rambar/tree"
)

// A disk is in use while RAMBar saves it: programs write, rename and map
// its files meanwhile. A save therefore keeps a file only as a version
// that existed (savecopy.go: unchanged from its scan to the end of its
// copy), and a snapshot is consistent only when every other path, looked
// at again after the scan (look.go, while the copy runs; or vouched for
// by the scan's still watch, still_linux.go, when it saw nothing move),
// is as the scan found it too: every path then held still from its scan
// to a moment after the scan ended, so the snapshot is the disk as it was
// at that moment, files that belong together (a database and its
// journal) included. Until
// then the save copies again what changed (saveRounds rounds, the
// unchanged copies of earlier rounds kept), pausing a little longer each
// time for a burst of writes to end.
// A disk that never holds still gets a snapshot labelled "taken while in
// use" (inuse.go).

// saveRounds is how many rounds a save copies what changed before it
// gives up waiting for the disk to hold still.
const saveRounds = 5

// roundPause is the pause before round r+1: 10, 40, 90, 160 ms.
func roundPause(r int) time.Duration { return time.Duration(r*r) * 10 * time.Millisecond }

// liveSave is one save of a disk that may be in use.
type liveSave struct {
	s        *Store
	root     string
	diskID   string
	curID    string
	idx      *snapstore.Index // the disk as of a snapshot, nil if unknown
	mapped   map[uint64]bool  // inodes mapped shared and writable now
	progress tree.ProgressFunc
	// still watches the disk from the round's scan on (nil: none); it
	// answers for the round's look when nothing moved. match is that
	// scan's match with the index (nil: none).
	still *tree.StillWatch
	match *snapstore.IndexMatch
	// pre is the first round's diff with the index when a rescan by the
	// feed made it (nil: the plan diffs); feed, when not nil, is given the
	// folders of every later round's scan; notKept are the last scan's
	// skipped paths.
	pre     *snapstore.IndexDiff
	feed    tree.FolderWatch
	notKept []tree.NotKept
	// base is the index the save goes on from, in memory, and from each
	// item's place in it (nil: none, the index is encoded whole);
	// written is the index the save wrote, if any.
	base    *snapstore.IndexBase
	from    []int32
	kept    []bool         // a rescan's, when base holds the scan it went on from
	firsts  map[int32]bool // a rescan's (tree.Rescanned.Firsts)
	written *snapstore.IndexBase
	// follow is the save's feed, when it has one; last and dirty, for a
	// save by it, the scan the index describes and what changed since.
	follow *Follow
	last   *followed
	dirty  tree.Dirty
	// scanAt is when the scan of the round began (Result.AsOf).
	scanAt time.Time
	// same keeps what the rounds' compares found holding saved bytes
	// (samebytes.go), so a later round does not read it again.
	same sameMemo
	// committed is what a round committed, for the next save by the feed
	// (nil: none, or the snapshot is one taken while in use).
	committed *followed
	// looked: the round's look was made before it (a steady take's):
	// the round makes none.
	looked bool
	// clock is the change clock as the save began, before its first scan
	// (steady.go); steadySpent the time its steady takes took.
	clock       int64
	steadySpent time.Duration
	// pinned are the objects the rounds' jobs hold (steady.go); mem the
	// steady takes' copies in memory (steadymem.go).
	pinned map[uint32]bool
	mem    map[string]*memCopy

	id    string // the snapshot being made
	next  uint32 // its next object number
	cache map[string]cachedCopy
}

// cachedCopy is a copy an earlier round of the save made of a file that
// held still while copied: reused while the file keeps that identity
// (and, watched, those contents).
type cachedCopy struct {
	id   tree.Ident
	obj  tree.ObjName
	size int64
	ext  []tree.Extent
	sum  *snapstore.ContentSum
}

// round is one round of a save: its plan and how its copy went.
type round struct {
	items []tree.Scanned
	p     *savePlan
	w     *watch
	chk   *copyCheck
	ext   *extentsOf
	// moved are the paths that changed since the scan (none, or res.InUse
	// set: a snapshot was committed).
	moved *snapstore.PathList
	// lost are the paths the round could not take as scanned: gone, or a
	// file that did not hold still while copied.
	lost map[string]bool
	// reshaped: what moved is more than files' contents: a path appeared
	// or went, a folder changed.
	reshaped bool
	res      Result
}

// unchanged reports, for a scan that matched the index exactly, whether
// the watched files still hold what was saved (watched: the index's, with
// their sums). The files watched only before are compared now, so the
// index keeps just those still mapped.
func (ls *liveSave) unchanged(items []tree.Scanned, watched map[string]snapstore.ContentSum) (bool, map[string]snapstore.ContentSum, error) {
	w := newWatch(ls.mapped, watched)
	if !w.any() {
		return true, watched, nil
	}
	changed, err := w.changed(ls.root, items)
	if err != nil || len(changed) > 0 {
		return false, nil, err
	}
	if rec := w.record(items); len(rec) != len(watched) {
		b, base := snapstore.IndexFrom(ls.curID, ls.diskID, items, rec, ls.base, ls.from, ls.kept)
		if ls.s.WriteIndexFrom(b, base) == nil {
			ls.written = base
		}
		return true, rec, nil
	}
	return true, watched, nil
}

// run saves items (the first scan) and the rounds that follow as a new
// snapshot. Nothing of it is left behind on failure, or when the disk
// turns out unchanged.
func (ls *liveSave) run(ctx context.Context, items []tree.Scanned) (Result, error) {
	ls.id, ls.same = snapstore.NewID(time.Now(), ls.curID), sameMemo{}
	objDir := ls.s.Path("objects", ls.id)
	if err := os.MkdirAll(objDir, 0o700); err != nil {
		return Result{}, tree.NoSpace(fmt.Errorf("make %s: %w", objDir, err))
	}
	res, err := ls.rounds(ctx, items)
	if err != nil || res.Snapshot != ls.id {
		os.Remove(ls.s.Path("snapshots", ls.id+".snap"))
		os.Remove(ls.s.Path("snapshots", ls.id+snapstore.InUseExt))
		os.RemoveAll(objDir)
	}
	return res, err
}

// rounds copies what changed until the disk holds still for one look, or
// saveRounds have passed.
func (ls *liveSave) rounds(ctx context.Context, items []tree.Scanned) (Result, error) {
	var against *snapstore.Index
	if ls.idx != nil && ls.idx.Snapshot == ls.curID {
		against = ls.idx
	}
	for n := 1; ; n++ {
		if n < saveRounds && ls.doomed() {
			if err := ls.calm(ctx); err != nil {
				return Result{}, err
			}
		} else if res, done, err := ls.roundAndWait(ctx, items, n); err != nil || done {
			return res, err
		}
		ls.still.Close()
		ls.still = tree.NewStillWatch()
		ls.scanAt = time.Now()
		sc, err := ls.scanAgain(len(items), against)
		if err != nil {
			return Result{}, err
		}
		items, ls.notKept, ls.match, ls.pre, ls.from, ls.kept, ls.firsts = sc.items, sc.notKept, sc.match, sc.diff, sc.from, sc.kept, sc.firsts
		if sc.same(len(items)) { // back as saved
			if same, _, err := ls.unchanged(items, sc.watched()); err != nil || same {
				h, herr := ls.s.ReadManifest(ls.curID, false)
				if err == nil {
					err = herr
				}
				if err != nil {
					return Result{}, err
				}
				return Result{Snapshot: ls.curID, Unchanged: true, Files: h.Files, Bytes: h.Bytes, AsOf: ls.scanAt}, nil
			}
		}
	}
}

// roundAndWait is round n of rounds: done, with the save's result, when
// it committed or gave up; else the disk moved, and it paused before the
// next.
func (ls *liveSave) roundAndWait(ctx context.Context, items []tree.Scanned, n int) (res Result, done bool, err error) {
	if roundPlanned != nil {
		roundPlanned(n)
	}
	r, err := ls.round(ctx, items, n == saveRounds)
	if err != nil {
		return Result{}, true, err
	}
	if r.moved.N == 0 || r.res.InUse != nil {
		return r.res, true, nil
	}
	if res, ok, err := ls.steady(ctx, r); err != nil || ok {
		return res, true, err
	}
	if n == saveRounds {
		res, err := ls.inUse(r)
		return res, true, err
	}
	ls.remember(r)
	select {
	case <-ctx.Done():
		return Result{}, true, ctx.Err()
	case <-time.After(roundPause(n)):
	}
	return Result{}, false, nil
}

// round plans items, copies what the plan needs and, when every file held
// still, writes the manifest; it commits the snapshot when the round's
// look at the disk (made meanwhile, from the end of the scan on) found
// nothing changed (moved then empty). A path copied is seen unchanged by
// its copy, which ends after the scan; every other path by the look, which
// starts after it: so the snapshot is the disk as it was when the scan
// ended. The symlink targets and xattrs the scan does not tell are read
// before the look starts.
func (ls *liveSave) round(ctx context.Context, items []tree.Scanned, last bool) (*round, error) {
	r := &round{items: items, w: newWatch(ls.mapped, nil), ext: &extentsOf{}, moved: &snapstore.PathList{Max: snapstore.InUseMax}, lost: map[string]bool{}}
	lose := func(p string, gone bool) {
		r.lost[p] = true
		r.moved.Add(p)
		r.reshaped = r.reshaped || gone
	}
	p, err := ls.s.plan(ls.root, ls.curID, ls.idx, items, r.w, ls.match, ls.pre, ls.same, ls.progress)
	if err != nil {
		return nil, err
	}
	r.p, r.chk = p, &copyCheck{scanned: p.scanned, w: r.w}
	for _, g := range p.gone {
		lose(g, true)
	}
	if p.full != nil {
		gone, err := p.full.readExtras()
		if err != nil {
			return nil, err
		}
		for _, g := range gone {
			lose(g, true)
		}
	}
	lk := ls.startLook(items)
	ls.fromCache(r)
	var planned int64
	for k := range p.jobs {
		planned += p.jobs[k].size
	}
	if ls.next, err = ls.s.copyObjects(ctx, ls.root, ls.id, p.jobs, ls.next, p.path, r.chk, r.ext, ls.progress); err != nil {
		lk.wait(r, false)
		return nil, err
	}
	var copied int64
	for k := range p.jobs {
		if j := &p.jobs[k]; j.ok() {
			copied += j.size
		} else {
			lose(p.path(j.ref), j.state == jobGone)
		}
	}
	if r.moved.N > 0 {
		return r, lk.wait(r, last) // only the last round needs to know what else moved
	}
	ms, err := ls.s.stream(p, ls.id, p.bytes-planned+copied, r.ext.m)
	if err == nil {
		err = ls.s.writeSnapshot(ms)
	}
	if lerr := lk.wait(r, true); err == nil {
		err = lerr
	}
	if err == nil {
		err = ls.resum(r)
	}
	var inUse *snapstore.InUse
	if err == nil && r.moved.N > 0 && last && r.tookScan() {
		inUse = inUseOf(r.moved)
		err = ls.s.WriteInUse(ls.id, inUse)
	}
	if err != nil || r.moved.N > 0 && inUse == nil {
		os.Remove(ls.s.Path("snapshots", ls.id+".snap"))
		return r, err
	}
	sums := r.w.record(items)
	b, base := snapstore.IndexFrom(ls.id, ls.diskID, items, sums, ls.base, ls.from, ls.kept)
	if err := ls.commit(ms.Refs[ls.id], b, base); err != nil {
		return nil, err
	}
	ls.committed = &followed{snapshot: ls.id, items: items, notKept: ls.notKept, watched: sums, index: base, firsts: ls.firsts}
	r.res = Result{Snapshot: ls.id, Files: p.files, Bytes: p.bytes - planned + copied, CopiedFiles: len(p.jobs),
		CopiedBytes: copied, Removed: p.removed, InUse: inUse, AsOf: ls.scanAt}
	return r, nil
}

// resum adds to r's moved the files mapped shared and writable whose
// contents changed since the round took them (their times do not tell).
func (ls *liveSave) resum(r *round) error {
	sums := r.w.record(r.items)
	if len(sums) == 0 {
		return nil
	}
	t, err := tree.OpenTree(ls.root)
	if err != nil {
		return err
	}
	defer t.Close()
	for _, p := range tree.SortedKeys(sums) {
		if got, _, err := sumFile(t, p); err != nil || got != sums[p] {
			r.moved.Add(p)
		}
	}
	return nil
}

// commit removes the objects of the save that its manifest does not use
// (copies of rounds that did not settle), then makes it current and writes
// the index idx (encoded as base, when not nil: IndexFrom). It is written
// before the save returns: a Mirror's write-back reads it (changes.go).
func (ls *liveSave) commit(used []uint32, idx []byte, base *snapstore.IndexBase) error {
	dir := ls.s.Path("objects", ls.id)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n, err := strconv.ParseUint(e.Name(), 10, 32); err != nil || !slices.Contains(used, uint32(n)) {
			os.Remove(ls.s.Path("objects", ls.id, e.Name()))
		}
	}
	// The commit point: from here the new tree is the current one.
	if err := ls.s.Commit(ls.id); err != nil {
		return err
	}
	_ = ls.s.WriteIndexFrom(idx, base)
	return nil
}

// remember keeps round r's copies that held still, for the rounds after.
func (ls *liveSave) remember(r *round) {
	if ls.cache == nil {
		ls.cache = map[string]cachedCopy{}
	}
	for k := range r.p.jobs {
		j := &r.p.jobs[k]
		c := cachedCopy{obj: j.obj(ls.id), size: j.size, ext: r.ext.m[k]}
		switch j.state {
		case jobCopied, jobCached:
			c.id = r.p.scanned(k).Id
		case jobMoved:
			c.id = r.chk.moved[k]
		default:
			continue
		}
		path := r.p.path(j.ref)
		if sum, ok := r.w.sum(path); ok && j.state != jobMoved {
			c.sum = &sum
		} else if ok {
			continue // a watched file's moved copy has no sum to trust
		}
		ls.cache[path] = c
	}
}

// fromCache gives the jobs of round r whose files still have the identity
// (and, watched, the contents) an earlier round copied them with that
// copy, so they are not copied again.
func (ls *liveSave) fromCache(r *round) {
	for k := range r.p.jobs {
		j := &r.p.jobs[k]
		c, ok := ls.cache[r.p.path(j.ref)]
		if !ok || j.state != 0 || c.id != r.p.scanned(k).Id {
			continue
		}
		if sum, watched := r.w.sum(r.p.path(j.ref)); watched && (c.sum == nil || *c.sum != sum) {
			continue
		}
		j.num, j.off, j.packed, j.size, j.state = c.obj.Num, c.obj.Off, c.obj.Packed, c.size, jobCached
		r.ext.set(k, c.ext)
	}
}
