package keeper

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"time"

	"rambar/changefeed"
	"rambar/ramdisk"
	"rambar/snapshot"
	"rambar/tree"
)

// Following is a kept or mirrored disk followed by its change feed while
// RAMBar runs (package changefeed): its saves read only the folders that
// changed (SaveOptions.Follow), and what is unsaved is known without a
// scan (Unsaved). A full scan still runs at the first save, hourly, when
// the feed may have missed something and at every eject (WalkNext).
type Following struct {
	feed  *changefeed.Feed
	f     *snapshot.Follow
	store func() (string, error) // the disk's current snapshot, as stored
	pub   *publisher
}

// Follow starts following disk v (kept or mirrored).
func (k *Keeper) Follow(v ramdisk.Volume) (*Following, error) {
	st, err := k.State(v.Name)
	if err != nil {
		return nil, err
	}
	mode := k.FeedMode
	if mode == changefeed.ModeNative {
		mode = changefeed.ModeFromEnv() // the app run by a test or the self-test: the Mac's semantics
	}
	feed, err := changefeed.OpenWith(v.MountPoint, changefeed.Options{Ignored: ownFile, Mode: mode})
	if err != nil {
		return nil, fmt.Errorf("follow %s: %w", v.Name, err)
	}
	s := k.store(st)
	return &Following{feed: feed, f: snapshot.NewFollow(feed), store: s.Current,
		pub: &publisher{path: filepath.Join(st.Backing, feedStatusName)}}, nil
}

// ownFile reports whether name in folder is RAMBar's own on every disk
// (tree.NeverContents): no change of the user's. A name that is contents
// on some disks (a Mirror disk's Caches, a .fseventsd on Linux) is a
// change: the save's scan decides.
func ownFile(folder, name string) bool { return folder == "." && tree.NeverContents(name) }

// Close stops following the disk.
func (f *Following) Close() error {
	if f == nil {
		return nil
	}
	f.unpublish()
	return f.feed.Close()
}

// Feed tells which feed follows the disk and the watches it holds.
func (f *Following) Feed() changefeed.Status { return f.feed.Status() }

// Wake receives when the disk changes (one wake-up for a burst).
func (f *Following) Wake() <-chan struct{} { return f.feed.Wake() }

// Next waits until the disk is due for its next continuous save: a
// change, then no other for ContinuousQuiet, or ContinuousBusy since the
// first. The quiet is counted from the newest change the feed holds, not
// from the wake-up: changes made during the last save (a burst that ended
// while it ran) do not wait again; and a wake-up for changes that save
// took already and committed is no change. False once ctx ends. A disk that rests
// idleFree gives back the memory its last save left free.
func (f *Following) Next(ctx context.Context) bool {
	idle := time.NewTimer(idleFree)
	defer idle.Stop()
	var last time.Time
	for woke := false; !woke; {
		select {
		case <-ctx.Done():
			return false
		case <-f.Wake():
			// Peek, not Held: the folders past the watch budget are
			// looked at (their marks read, or named for a walk) only then.
			ch := f.feed.Peek()
			last, woke = ch.Last, !ch.Empty() || !f.saved()
		case <-idle.C:
			f.Rest()
		}
	}
	f.publish(false)
	first := time.Now()
	t := time.NewTimer(quietLeft(last, first))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			f.publish(true)
			return true
		case <-f.Wake():
			f.publish(false)
			now := time.Now()
			left := ContinuousBusy - now.Sub(first)
			if left <= 0 {
				f.publish(true)
				return true
			}
			_, _, last = f.feed.Held()
			t.Reset(min(quietLeft(last, now), left))
		}
	}
}

// saved reports whether the last save committed what the feed heard
// before it (it took those changes): else what it took is still unsaved.
func (f *Following) saved() bool {
	cur, err := f.store()
	return err == nil && f.f.Follows(cur)
}

// quietLeft is how long after now the disk will have been quiet for
// ContinuousQuiet, its newest change made at last (zero, or not before
// now: just now).
func quietLeft(last, now time.Time) time.Duration {
	if last.IsZero() || !last.Before(now) {
		return ContinuousQuiet
	}
	return ContinuousQuiet - now.Sub(last)
}

// idleFree is how long a followed disk rests before its process gives
// back the memory its saves left free.
const idleFree = 5 * time.Second

// Rest drops what only the next save would use again and gives the memory
// back, as Next does when the disk rests: for a disk whose saves Next
// does not wait for (one saved by its interval).
func (f *Following) Rest() {
	f.f.Rest()
	// The garbage a save of a large tree leaves (a scan of 500,000 paths is
	// about 150 MB, and the runtime collects it only as the heap doubles)
	// is collected and the free heap returned to the system: the menu-bar
	// app at rest holds what it follows, not what its last save used.
	debug.FreeOSMemory()
}

// WalkNext makes the next save walk the whole disk (an eject's).
func (f *Following) WalkNext() { f.f.WalkNext() }

// Unsaved is what changed on a followed disk since its last save began.
type Unsaved struct {
	// Known: the feed vouches for the disk since a save this process made
	// of the store's current snapshot; else nothing below is known.
	Known bool `json:"known"`
	// Paths is how many paths changed, Last when the newest change came.
	Paths int       `json:"paths"`
	Last  time.Time `json:"last_change"`
	// Linked is how many files were given another name (a hard link
	// made), as the feed reported them.
	Linked int `json:"linked,omitempty"`
	// Lost says why the feed cannot tell (a scan must).
	Lost string `json:"lost,omitempty"`
}

// Unsaved tells what changed since the last save, with no scan.
func (f *Following) Unsaved() Unsaved {
	ch := f.feed.Peek()
	cur, err := f.store()
	if ch.Lost {
		return Unsaved{Lost: ch.Why}
	}
	if n := f.feed.Unwatched(); n > 0 {
		return Unsaved{Lost: fmt.Sprintf("%d folders are past the watch budget: what changed in them only their walk at the next save tells", n)}
	}
	if err != nil || !f.f.Follows(cur) {
		return Unsaved{Lost: "not saved since RAMBar started following it"}
	}
	return Unsaved{Known: true, Paths: ch.Paths, Last: ch.Last, Linked: len(ch.Linked)}
}

// follow is f's part in a save (nil for none).
func (f *Following) follow() *snapshot.Follow {
	if f == nil {
		return nil
	}
	return f.f
}
