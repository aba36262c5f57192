package keeper

import (
	"os"
	"path/filepath"
	"sync"
	"time"

	"rambar/changefeed"
	"rambar/internal/record"
)

// The menu-bar app publishes what the change feed of each disk it follows
// knows (FeedStatus) in the disk's backing folder, so that `rambar info`,
// another process, tells the unsaved changes with no scan of the disk.
// It is written when the count changes (at most every publishEvery) and
// after each save, and removed when the app stops following the disk; a
// reader trusts it only while the app that wrote it runs and the store's
// current snapshot is the one it counts from.
const (
	feedStatusName = "feed.json"
	feedStatusMax  = 4 << 10
	publishEvery   = time.Second
)

// FeedStatus is what a followed disk's change feed told at At.
type FeedStatus struct {
	// PID is the process that follows the disk (the menu-bar app).
	PID int `json:"pid"`
	// Snapshot is the store's current snapshot, which Unsaved counts from.
	Snapshot string    `json:"snapshot"`
	Unsaved  Unsaved   `json:"unsaved"`
	At       time.Time `json:"at"`
	// Feed is which feed follows the disk (fanotify, inotify, FSEvents)
	// and the watches it holds.
	Feed changefeed.Status `json:"feed"`
}

// publisher writes a Following's status file.
type publisher struct {
	path   string
	mu     sync.Mutex
	last   FeedStatus // as last written (At: when)
	closed bool       // unpublished: never written again
}

// publish writes f's status when it changed since the last write, and at
// most every publishEvery unless now (after a save, or once the disk is
// quiet).
func (f *Following) publish(now bool) {
	if f == nil || f.pub == nil {
		return
	}
	p := f.pub
	cur, _ := f.store()
	st := FeedStatus{PID: os.Getpid(), Snapshot: cur, Unsaved: f.Unsaved(), Feed: f.feed.Status()}
	p.mu.Lock()
	defer p.mu.Unlock()
	was := p.last
	st.At, was.At = time.Time{}, time.Time{}
	if p.closed || st == was || !now && time.Since(p.last.At) < publishEvery {
		return
	}
	st.At = time.Now().UTC()
	if record.WriteJSONFast(p.path, st) == nil {
		p.last = st
	}
}

// unpublish removes f's status file: no one vouches for it any more.
func (f *Following) unpublish() {
	if f != nil && f.pub != nil {
		f.pub.mu.Lock()
		f.pub.closed = true
		os.Remove(f.pub.path)
		f.pub.mu.Unlock()
	}
}

// FeedStatus is what the process following disk name by its change feed
// last published; false when none did, or what is there cannot be read.
// The caller checks that PID is the menu-bar app that runs now.
func (k *Keeper) FeedStatus(name string) (FeedStatus, bool) {
	st, err := k.State(name)
	if err != nil {
		return FeedStatus{}, false
	}
	var fs FeedStatus
	if record.ReadJSON(filepath.Join(st.Backing, feedStatusName), feedStatusMax, &fs) != nil || fs.PID <= 0 || fs.Unsaved.Paths < 0 || fs.At.IsZero() {
		return FeedStatus{}, false
	}
	cur, err := k.store(st).Current()
	if err != nil || cur != fs.Snapshot {
		return FeedStatus{}, false // saved since by another process
	}
	return fs, true
}
