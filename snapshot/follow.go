package snapshot

import (
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"rambar/changefeed"
	"rambar/snapstore"
	"rambar/tree"
)

// Feed is a disk's change feed as a save by it uses one
// (changefeed.Feed).
type Feed interface {
	tree.FolderWatch
	Take() changefeed.Changes
	Peek() changefeed.Changes
	Held() (paths int, lost bool, last time.Time)
}

// FullEvery is how long saves by a feed go on before one walks the whole
// disk anyway: correctness never rests on the feed alone.
const FullEvery = time.Hour

// Follow is one disk's saves by its change feed: what the last save
// scanned, kept so that the next reads only the folders the feed names
// and takes the rest from it. A save without a Follow, or whose Follow
// cannot vouch for the disk (the feed lost events, the store's current
// snapshot is not the one it saved, the hour since the last full scan has
// passed), walks the whole disk and starts following it again.
type Follow struct {
	feed Feed
	mu   sync.Mutex
	last *followed
	full time.Time // when the last full scan started
	// full1 makes the next save walk the whole disk (WalkNext).
	full1 bool
	// spare is the scan of the save before last, no longer used: the
	// next rescan's room.
	spare []tree.Scanned
}

// followed is what a save scanned and committed: the index it wrote
// describes exactly these items (and sums), as snapshot snapshot.
type followed struct {
	snapshot string
	items    []tree.Scanned
	notKept  []tree.NotKept
	watched  map[string]snapstore.ContentSum
	// index is the index written for it, in memory (nil: unknown): the
	// next save's index copies its unchanged runs.
	index *snapstore.IndexBase
	// firsts are the places in items of the files other names link to,
	// when a rescan made them (nil: unknown).
	firsts map[int32]bool
}

// NewFollow follows a disk by feed f.
func NewFollow(f Feed) *Follow { return &Follow{feed: f} }

// WalkNext makes the next save walk the whole disk (an eject's save).
func (f *Follow) WalkNext() {
	f.mu.Lock()
	f.full1 = true
	f.mu.Unlock()
}

// Follows reports whether f goes on from a save of snapshot cur: the
// feed's changes since are all that is unsaved, as long as it lost none.
func (f *Follow) Follows(cur string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last != nil && f.last.snapshot == cur
}

// index is the store's index: the one the last save by f wrote, from
// memory, while the file is still that one and describes cur; else read
// (LoadIndex). f may be nil.
func (f *Follow) index(s *Store, cur string) *snapstore.Index {
	if f != nil {
		f.mu.Lock()
		last := f.last
		f.mu.Unlock()
		if last != nil && last.snapshot == cur && last.index != nil && last.index.Stamp != (snapstore.IndexStamp{}) {
			if st, ok := s.IndexStamp(); ok && st == last.index.Stamp {
				return last.index.Index()
			}
		}
	}
	return s.LoadIndex()
}

// start takes the feed's changes for a save of the disk whose current
// snapshot is cur (indexed: the store's index describes it exactly), at
// now: the earlier scan to go on from, with what
// changed since, or nil when the save must walk everything.
func (f *Follow) start(cur string, indexed bool, now time.Time) (*followed, tree.Dirty) {
	ch := f.feed.Take() // before anything is read: later changes are the next save's
	f.mu.Lock()
	defer f.mu.Unlock()
	last := f.last
	f.last = nil // until this save commits
	if ch.Lost || last == nil || !indexed || last.snapshot != cur || f.full1 || now.Sub(f.full) >= FullEvery || now.Before(f.full) {
		f.full, f.full1 = now, false
		return nil, tree.Dirty{}
	}
	return last, tree.Dirty{Folders: ch.Folders, Linked: ch.Linked, Named: ch.Named}
}

// done records what a save committed: the next goes on from it. from is
// what the save went on from (nil: it walked): its scan is the next
// rescan's room, unless fl holds it.
func (f *Follow) done(fl, from *followed) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last = fl
	if from != nil && len(from.items) > 0 && !sameSlice(from.items, fl.items) && (fl.index == nil || !sameSlice(from.items, fl.index.Items)) {
		f.spare = from.items
	}
}

// takeSpare returns the room for the next rescan (nil: none), once.
func (f *Follow) takeSpare() []tree.Scanned {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.spare
	f.spare = nil
	return s
}

// Rest drops what only the next save would use again (the room for its
// rescan): the disk rests, and its process gives its memory back.
func (f *Follow) Rest() { f.takeSpare() }

// sameSlice reports whether a and b share their first element.
func sameSlice(a, b []tree.Scanned) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

// calm reports whether the feed saw nothing change, since the save took
// its changes, in the folders the save did not read (read): those the
// save's still watch does not follow. Any other change says no (the
// save then looks at every path, as without a feed).
func (f *Follow) calm(read map[string]bool) bool {
	ch := f.feed.Peek()
	if ch.Lost || len(ch.Linked) > 0 {
		return false
	}
	for d := range ch.Folders {
		if !read[d] {
			return false
		}
	}
	return true
}

// scanned is a save's scan of the disk, compared with what it last saved:
// a full scan matched with the index as it went (match), or a rescan by
// the feed diffed with the scan before (diff).
type scanned struct {
	items   []tree.Scanned
	notKept []tree.NotKept
	match   *snapstore.IndexMatch
	diff    *snapstore.IndexDiff
	// a rescan's: each item's place in the scan before, and which it
	// took as it was (tree.Rescanned)
	from   []int32
	kept   []bool
	firsts map[int32]bool
}

// same reports whether the n items are exactly what was last saved.
func (sc *scanned) same(n int) bool {
	if sc.diff != nil {
		return sc.diff.Changed == 0 && len(sc.diff.Gone) == 0 && !sc.diff.Reshaped
	}
	return sc.match != nil && sc.match.Matched(n)
}

// watched are the files the index watches, with their sums.
func (sc *scanned) watched() map[string]snapstore.ContentSum {
	if sc.diff != nil {
		return sc.diff.Watched
	}
	return sc.match.Watched
}

// rescan reads the folders dirty names (tree.Rescan), taking the rest
// from last, and diffs it with last, which the index x describes. The
// still watch then also asks f whether the folders taken from last held
// still.
// into, when not nil, is room for the scan (Opts.Into).
func rescan(root string, last *followed, dirty tree.Dirty, x *snapstore.Index, caches bool, still *tree.StillWatch, f *Follow, into []tree.Scanned) (scanned, error) {
	r, err := tree.Rescan(root, last.items, last.notKept, dirty, tree.Opts{KeepLF: x.Lists("lost+found"), Caches: caches, Still: still, Feed: f.feed, Into: into, Firsts: last.firsts})
	if err != nil {
		return scanned{}, err
	}
	still.Also(func() bool { return f.calm(r.Read) })
	d := &snapstore.IndexDiff{Same: r.Same, Gone: r.Gone, Watched: last.watched, Reshaped: r.Reshaped}
	for _, same := range r.Same {
		if !same {
			d.Changed++
		}
	}
	sc := scanned{items: r.Items, notKept: r.NotKept, diff: d, from: r.From, firsts: r.Firsts}
	if last.index != nil && sameSlice(last.index.Items, last.items) {
		sc.kept = r.Kept // what the index was made of: its entries' places
	}
	return sc, nil
}

// tookScan reports whether the last round of a save of a disk that never
// held still took every path as its scan found it: after the scan only
// files' contents changed (no path appeared or went, no folder changed),
// every copy is of the version scanned, and nothing on the disk is
// compared by content (a mapped file's copy may be torn with no time to
// tell). The round's plan is then exactly what inUse would splice
// (splice.go), so the round commits it as it is, labelled taken while in
// use: a delta like any save, and one the next save by the feed goes on
// from (the feed holds every change since the scan).
func (r *round) tookScan() bool {
	return !r.reshaped && len(r.lost) == 0 && r.moved.N == len(r.moved.Paths) && !r.w.any()
}

// splicedAsScanned reports whether the in-use snapshot spliced from
// round r (with entries paths) has the paths of r's scan, each file
// either as scanned or, for the files whose copy did not hold still, its
// previous version: no path appeared, went or was left out, no hard link
// was split, nothing is compared by content. The next save by the feed
// then goes on from r's scan: each file not kept as scanned changed after
// the scan, so its folder is in the feed's changes, and the save reads it
// again.
func (r *round) splicedAsScanned(entries int) bool {
	if r.reshaped || entries != len(r.items) || r.w.any() {
		return false
	}
	if len(r.lost) == 0 {
		return true
	}
	for i := range r.items {
		it := &r.items[i]
		if it.HardLink > 0 && (r.lost[it.Rel] || r.lost[r.items[it.HardLink-1].Rel]) {
			return false
		}
		if r.lost[it.Rel] && tree.KindOf(it.Id.Mode) != tree.KindFile {
			return false
		}
	}
	return true
}

// scanAgain is a later round's scan. The feed's changes are taken first,
// so that the round's look asks the feed what changed since this scan.
// A save by the feed rescans from the scan the index describes, with
// every change since it (the first round's and these); any other walks
// the whole disk, as does one whose feed lost changes.
func (ls *liveSave) scanAgain(hint int, against *snapstore.Index) (scanned, error) {
	if f := ls.follow; f != nil {
		ch := f.feed.Take()
		if !ch.Lost && ls.last != nil {
			ls.dirty = withChanges(ls.dirty, ch)
			return rescan(ls.root, ls.last, ls.dirty, against, ls.s.Caches, ls.still, f, nil)
		}
		ls.last, ls.base = nil, nil
	}
	var sc scanned
	var err error
	sc.items, sc.notKept, sc.match, err = scanAgainst(ls.root, hint, against, ls.s.Caches, ls.still, ls.feed)
	return sc, err
}

// withChanges is d with ch's folders and linked files added.
func withChanges(d tree.Dirty, ch changefeed.Changes) tree.Dirty {
	out := tree.Dirty{Folders: maps.Clone(d.Folders), Linked: maps.Clone(d.Linked), Named: map[string]map[string]struct{}{}}
	if out.Folders == nil {
		out.Folders = map[string]struct{}{}
	}
	if out.Linked == nil {
		out.Linked = map[uint64]struct{}{}
	}
	// A folder is read at its names only while every change to it named
	// them; one read whole by either is read whole.
	for f, names := range d.Named {
		out.Named[f] = maps.Clone(names)
	}
	for f := range ch.Folders {
		names, named := ch.Named[f]
		_, before := d.Folders[f]
		switch {
		case !named || before && out.Named[f] == nil:
			delete(out.Named, f)
		case before:
			maps.Copy(out.Named[f], names)
		default:
			out.Named[f] = maps.Clone(names)
		}
	}
	maps.Copy(out.Folders, ch.Folders)
	maps.Copy(out.Linked, ch.Linked)
	return out
}

// look is the round's look at the disk after its scan: at the folders
// the feed named since the scan when it can tell, else at every path.
func (ls *liveSave) look(items []tree.Scanned, stop *atomic.Bool) (*snapstore.PathList, bool, error) {
	if ls.follow != nil {
		if ch := ls.follow.feed.Peek(); !ch.Lost && len(ch.Linked) == 0 {
			return lookIn(ls.root, items, ch.Folders, snapstore.InUseMax, ls.s.Caches, stop)
		}
	}
	return lookAt(ls.root, items, snapstore.InUseMax, ls.s.Caches, stop)
}
