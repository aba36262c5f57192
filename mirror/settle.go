package mirror

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"
)

// A disk is in use while RAMBar saves it: programs write, rename and map
// its files meanwhile. A save therefore keeps a file only as a version
// that existed (savecopy.go: unchanged from its scan to the end of its
// copy), and a snapshot is consistent only when, once everything is
// copied, one more look at the whole disk (made while the manifest is
// written and flushed) finds nothing changed since the scan: every path
// then held still from its scan to that look, so the snapshot is the disk
// as it was at one moment between the two, files that belong together (a
// database and its journal) included. Until then the save copies again
// what changed (saveRounds rounds, the unchanged copies of earlier rounds
// kept), pausing a little longer each time for a burst of writes to end.
// A disk that never holds still gets a snapshot labelled "taken while in
// use" (inuse.go).

// saveRounds is how many rounds a save copies what changed before it
// gives up waiting for the disk to hold still.
const saveRounds = 5

// roundPause is the pause before round r+1: 10, 40, 90, 160 ms.
func roundPause(r int) time.Duration { return time.Duration(r*r) * 10 * time.Millisecond }

// inUseMax is how many of the paths that changed during a save it names.
const inUseMax = 1000

// liveSave is one save of a disk that may be in use.
type liveSave struct {
	s        *store
	root     string
	diskID   string
	curID    string
	idx      *index          // the disk as of a snapshot, nil if unknown
	mapped   map[uint64]bool // inodes mapped shared and writable now
	progress ProgressFunc

	id    string // the snapshot being made
	next  uint32 // its next object number
	cache map[string]cachedCopy
}

// cachedCopy is a copy an earlier round of the save made of a file that
// held still while copied: reused while the file keeps that identity
// (and, watched, those contents).
type cachedCopy struct {
	id   ident
	obj  objName
	size int64
	ext  []Extent
	sum  *contentSum
}

// round is one round of a save: its plan and how its copy went.
type round struct {
	items []scanned
	p     *savePlan
	w     *watch
	chk   *copyCheck
	ext   *extentsOf
	moved *pathList // paths that changed since the scan (none: a snapshot was committed)
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
func (ls *liveSave) unchanged(items []scanned, watched map[string]contentSum) (bool, error) {
	w := newWatch(ls.mapped, watched)
	if !w.any() {
		return true, nil
	}
	changed, err := w.changed(ls.root, items)
	if err != nil || len(changed) > 0 {
		return false, err
	}
	if rec := w.record(items); len(rec) != len(watched) {
		_ = ls.s.writeIndex(indexOf(ls.curID, ls.diskID, items, rec))
	}
	return true, nil
}

// run saves items (the first scan) and the rounds that follow as a new
// snapshot. Nothing of it is left behind on failure, or when the disk
// turns out unchanged.
func (ls *liveSave) run(ctx context.Context, items []scanned) (Result, error) {
	ls.id = newID(time.Now(), ls.curID)
	objDir := ls.s.path("objects", ls.id)
	if err := os.MkdirAll(objDir, 0o700); err != nil {
		return Result{}, noSpace(fmt.Errorf("make %s: %w", objDir, err))
	}
	res, err := ls.rounds(ctx, items)
	if err != nil || res.Snapshot != ls.id {
		os.Remove(ls.s.path("snapshots", ls.id+".snap"))
		os.Remove(ls.s.path("snapshots", ls.id+inUseExt))
		os.RemoveAll(objDir)
	}
	return res, err
}

// rounds copies what changed until the disk holds still for one look, or
// saveRounds have passed.
func (ls *liveSave) rounds(ctx context.Context, items []scanned) (Result, error) {
	var against *index
	if ls.idx != nil && ls.idx.Snapshot == ls.curID {
		against = ls.idx
	}
	for n := 1; ; n++ {
		r, err := ls.round(ctx, items, n == saveRounds)
		if err != nil {
			return Result{}, err
		}
		if r.moved.n == 0 {
			return r.res, nil
		}
		if n == saveRounds {
			return ls.inUse(r)
		}
		ls.remember(r)
		select {
		case <-ctx.Done():
			return Result{}, ctx.Err()
		case <-time.After(roundPause(n)):
		}
		var m *indexMatch
		if items, _, m, err = scanAgainst(ls.root, len(items), against); err != nil {
			return Result{}, err
		}
		if m != nil && m.matched(len(items)) { // back as saved
			if same, err := ls.unchanged(items, m.watched); err != nil || same {
				h, herr := ls.s.readManifest(ls.curID, false)
				if err == nil {
					err = herr
				}
				if err != nil {
					return Result{}, err
				}
				return Result{Snapshot: ls.curID, Unchanged: true, Files: h.Files, Bytes: h.Bytes}, nil
			}
		}
	}
}

// round plans items, copies what the plan needs and, when every file held
// still, writes the manifest while looking at the disk again; it commits
// the snapshot when that look finds nothing changed (moved then empty).
// The last round looks in any case, to tell what moved.
func (ls *liveSave) round(ctx context.Context, items []scanned, last bool) (*round, error) {
	r := &round{items: items, w: newWatch(ls.mapped, nil), ext: &extentsOf{}, moved: &pathList{max: inUseMax}, lost: map[string]bool{}}
	lose := func(p string, gone bool) {
		r.lost[p] = true
		r.moved.add(p)
		r.reshaped = r.reshaped || gone
	}
	p, err := ls.s.plan(ls.root, ls.curID, ls.idx, items, r.w)
	if err != nil {
		return nil, err
	}
	r.p, r.chk = p, &copyCheck{scanned: p.scanned, w: r.w}
	for _, g := range p.gone {
		lose(g, true)
	}
	ls.fromCache(r)
	var planned int64
	for k := range p.jobs {
		planned += p.jobs[k].size
	}
	if ls.next, err = ls.s.copyObjects(ctx, ls.root, ls.id, p.jobs, ls.next, p.path, r.chk, r.ext, ls.progress); err != nil {
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
	if p.full != nil {
		gone, err := p.full.readExtras()
		if err != nil {
			return nil, err
		}
		for _, g := range gone {
			lose(g, true)
		}
	}
	idx := indexOf(ls.id, ls.diskID, items, r.w.record(items))
	if r.moved.n > 0 {
		if last {
			x, err := openIndex(idx)
			if err != nil {
				return nil, err
			}
			err = ls.look(x, r)
			return r, err
		}
		return r, nil
	}
	ms, err := ls.s.stream(p, ls.id, p.bytes-planned+copied, r.ext.m)
	if err != nil {
		return nil, err
	}
	if err := ls.writeWhileLooking(ms, idx, r); err != nil || r.moved.n > 0 {
		os.Remove(ls.s.path("snapshots", ls.id+".snap"))
		return r, err
	}
	if err := ls.commit(ms.Refs[ls.id], idx); err != nil {
		return nil, err
	}
	r.res = Result{Snapshot: ls.id, Files: p.files, Bytes: p.bytes - planned + copied, CopiedFiles: len(p.jobs),
		CopiedBytes: copied, Removed: p.removed}
	return r, nil
}

// writeWhileLooking writes and flushes manifest ms while it looks at the
// disk again (look), comparing it with idx (what round r saved).
func (ls *liveSave) writeWhileLooking(ms *manifestStream, idx []byte, r *round) error {
	x, err := openIndex(idx)
	if err != nil {
		return err
	}
	looked := make(chan error, 1)
	go func() { looked <- ls.look(x, r) }()
	werr := ls.s.writeSnapshot(ms)
	if err := <-looked; werr == nil {
		werr = err
	}
	return werr
}

// look scans the disk and compares it with x, adding to r's moved the
// paths added, removed or changed since, and the watched files whose
// contents changed.
func (ls *liveSave) look(x *index, r *round) error {
	m, err := scanDiffs(ls.root, x, inUseMax)
	if err != nil {
		return err
	}
	for _, p := range m.diffs.paths {
		r.moved.add(p)
	}
	r.moved.n += m.diffs.n - len(m.diffs.paths)
	r.reshaped = r.reshaped || m.moved
	if len(m.watched) == 0 {
		return nil
	}
	t, err := openTree(ls.root)
	if err != nil {
		return err
	}
	defer t.close()
	for _, p := range sortedKeys(m.watched) {
		if got, _, err := sumFile(t, p); err != nil || got != m.watched[p] {
			r.moved.add(p)
		}
	}
	return nil
}

// commit removes the objects of the save that its manifest does not use
// (copies of rounds that did not settle), then makes it current and writes
// the index.
func (ls *liveSave) commit(used []uint32, idx []byte) error {
	dir := ls.s.path("objects", ls.id)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n, err := strconv.ParseUint(e.Name(), 10, 32); err != nil || !slices.Contains(used, uint32(n)) {
			os.Remove(ls.s.path("objects", ls.id, e.Name()))
		}
	}
	// The commit point: from here the new tree is the current one.
	if err := ls.s.commit(ls.id); err != nil {
		return err
	}
	_ = ls.s.writeIndex(idx)
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
			c.id = r.p.scanned(k).id
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
		if !ok || j.state != 0 || c.id != r.p.scanned(k).id {
			continue
		}
		if sum, watched := r.w.sum(r.p.path(j.ref)); watched && (c.sum == nil || *c.sum != sum) {
			continue
		}
		j.num, j.off, j.packed, j.size, j.state = c.obj.Num, c.obj.Off, c.obj.Packed, c.size, jobCached
		r.ext.set(k, c.ext)
	}
}
