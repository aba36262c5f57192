package snapshot

import (
	"sync"
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
}

// followed is what a save scanned and committed: the index it wrote
// describes exactly these items (and sums), as snapshot snapshot.
type followed struct {
	snapshot string
	items    []tree.Scanned
	notKept  []tree.NotKept
	watched  map[string]snapstore.ContentSum
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
	return last, tree.Dirty{Folders: ch.Folders, Linked: ch.Linked}
}

// done records what a save committed: the next goes on from it.
func (f *Follow) done(fl *followed) {
	f.mu.Lock()
	f.last = fl
	f.mu.Unlock()
}

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
func rescan(root string, last *followed, dirty tree.Dirty, x *snapstore.Index, caches bool, still *tree.StillWatch, f *Follow) (scanned, error) {
	r, err := tree.Rescan(root, last.items, last.notKept, dirty, tree.Opts{KeepLF: x.Lists("lost+found"), Caches: caches, Still: still, Feed: f.feed})
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
	return scanned{items: r.Items, notKept: r.NotKept, diff: d}, nil
}
