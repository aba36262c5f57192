//go:build linux

package changefeed

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The inotify watches of every feed of this process together stay within
// a budget: one eighth of fs.inotify.max_user_watches, which the user's
// editors, file managers, build watchers and desktop daemons share (one
// program taking them all starves the rest: their next watch fails with
// "No space left on device"). A folder past the budget is not watched:
// the feed keeps it (unwatched), gives it in every Changes, Take and Peek,
// as a folder to read whole, and wakes the saves every coverEvery while
// it has any, so that a change there is saved within seconds by the walk
// of those folders that the next save makes. A fanotify feed holds no
// watch at all.

// budgetShare is the share of max_user_watches the budget is (1/8).
const budgetShare = 8

// coverEvery is how often a feed with folders past the budget wakes the
// saves: a change there is in a save about coverEvery plus the save's own
// time later (keeper.Following.Next waits ContinuousQuiet first).
const coverEvery = 4 * time.Second

// maxUnwatched is how many unwatched folders a feed keeps before its
// takes are Lost (a walk of the whole disk, which finds them again).
const maxUnwatched = 250_000

// budget is the process's watch budget and the feeds that draw on it.
var budget struct {
	mu    sync.Mutex
	limit int // 0: not read yet
	feeds map[*Feed]struct{}
	// others are the watches taken by others than the feeds (TakeWatch).
	others int
}

// feedExt is what a Linux feed keeps beyond its inotify watches: the
// fanotify feed that follows the disk instead (nil: inotify does), why
// not, and the folders past the watch budget.
type feedExt struct {
	fan *fanFeed
	why string
	// Under Feed.mu: inos are the watches by the inode of their folder
	// (a folder watched already needs no room); unwatched the folders
	// past the budget; covering whether the wake-ups run.
	inos      map[inode]int32
	unwatched map[string]struct{}
	covering  bool
	// marks follow the folders past the budget where they can (nil:
	// none yet, or marksWhy says why none; marks_linux.go).
	marks    *markGroup
	marksWhy string
}

// WatchBudget is how many inotify watches all feeds of this process may
// hold together: one eighth of fs.inotify.max_user_watches.
func WatchBudget() int {
	budget.mu.Lock()
	defer budget.mu.Unlock()
	return budgetLimit()
}

// budgetLimit is the budget; budget.mu is held.
func budgetLimit() int {
	if budget.limit == 0 {
		budget.limit = shareOf("/proc/sys/fs/inotify/max_user_watches", budgetShare)
	}
	return budget.limit
}

// shareOf is one share-th of the count in the /proc/sys file path (a
// kernel limit), or of 8192, the kernel's smallest default, where it
// cannot be read or is below share.
func shareOf(path string, share int) int {
	if b, err := os.ReadFile(path); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n >= share {
			return n / share
		}
	}
	return 8192 / share
}

// setWatchBudget makes the budget n watches (a test's), until the
// returned func puts it back.
func setWatchBudget(n int) (restore func()) {
	return swapLimit(&budget.mu, &budget.limit, n)
}

// swapLimit makes *limit n under mu (a test's budget), until the returned
// func puts back what it was.
func swapLimit(mu *sync.Mutex, limit *int, n int) (restore func()) {
	mu.Lock()
	was := *limit
	*limit = n
	mu.Unlock()
	return func() {
		mu.Lock()
		*limit = was
		mu.Unlock()
	}
}

// WatchesHeld is how many inotify watches the feeds of this process hold.
func WatchesHeld() int {
	budget.mu.Lock()
	defer budget.mu.Unlock()
	return heldLocked()
}

// TakeWatch takes one watch of the budget for another inotify watch of
// this process (a save's still watch, package tree): false when none is
// left, and the caller goes without. GiveWatches gives them back.
func TakeWatch() bool {
	budget.mu.Lock()
	defer budget.mu.Unlock()
	if heldLocked() >= budgetLimit() {
		return false
	}
	budget.others++
	return true
}

// GiveWatches gives back n watches TakeWatch took (their inotify
// descriptor closed).
func GiveWatches(n int) {
	budget.mu.Lock()
	budget.others = max(0, budget.others-n)
	budget.mu.Unlock()
}

// heldLocked counts the watches of the open feeds and the others taken;
// budget.mu is held.
func heldLocked() int {
	n := budget.others
	for g := range budget.feeds {
		select {
		case <-g.closed:
			delete(budget.feeds, g)
			continue
		default:
		}
		g.mu.Lock()
		n += len(g.wds)
		g.mu.Unlock()
	}
	return n
}

// reserveWatch takes one watch of the budget for f's next watch, true
// when the budget has room. The reservation is counted until the watch
// is in f.wds and the caller gives it back (GiveWatches), so that a still
// watch taking one in between cannot take the same last watch.
func (f *Feed) reserveWatch() bool {
	budget.mu.Lock()
	defer budget.mu.Unlock()
	if budget.feeds == nil {
		budget.feeds = map[*Feed]struct{}{}
	}
	budget.feeds[f] = struct{}{}
	if heldLocked() >= budgetLimit() {
		return false
	}
	budget.others++
	return true
}

// inode is a folder's identity: its device and inode numbers (zero: not
// known).
type inode struct{ dev, ino uint64 }

// watching reports whether folder rel, open as dir with inode ino, is
// watched already (by an earlier walk), and names it rel from now on.
// The queue is read first, so that a watch whose folder was removed is
// gone before its inode's number can name another folder.
func (f *Feed) watching(ino inode, rel string) bool {
	f.drain()
	f.mu.Lock()
	defer f.mu.Unlock()
	wd, ok := f.ext.inos[ino]
	if !ok {
		return false
	}
	if _, ok := f.wds[wd]; !ok {
		delete(f.ext.inos, ino)
		return false
	}
	f.wds[wd] = rel
	delete(f.ext.unwatched, rel)
	return true
}

// watched records that watch wd follows folder rel (inode ino); f.mu is
// held.
func (f *Feed) watched(ino inode, wd int32, rel string) {
	delete(f.ext.unwatched, rel)
	if ino == (inode{}) {
		return
	}
	if f.ext.inos == nil {
		f.ext.inos = map[inode]int32{}
	}
	if len(f.ext.inos) > 2*len(f.wds)+1024 { // drop the watches removed since
		for i, w := range f.ext.inos {
			if _, ok := f.wds[w]; !ok {
				delete(f.ext.inos, i)
			}
		}
	}
	f.ext.inos[ino] = wd
}

// unwatch records that folder rel is past the budget: every Changes gives
// it to read whole, and the saves are woken every coverEvery.
func (f *Feed) unwatch(rel string) {
	f.mu.Lock()
	if f.ext.unwatched == nil {
		f.ext.unwatched = map[string]struct{}{}
	}
	f.ext.unwatched[rel] = struct{}{}
	start := !f.ext.covering
	f.ext.covering = true
	f.mu.Unlock()
	if start {
		go f.coverLoop()
	}
}

// pastBudget follows folder rel, open as dir, past the watch budget: by
// a fanotify inode mark where it can, else by walks (unwatch).
func (f *Feed) pastBudget(dir int, rel string) {
	if !f.mark(dir, rel) {
		f.unwatch(rel)
	}
}

// Unwatched is how many folders of the disk are past the watch budget
// (read again by every save).
func (f *Feed) Unwatched() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.ext.unwatched)
}

// coverLoop wakes the saves every coverEvery while f has folders past
// the budget, until f is closed.
func (f *Feed) coverLoop() {
	t := time.NewTicker(coverEvery)
	defer t.Stop()
	for {
		select {
		case <-f.closed:
			return
		case <-t.C:
			if f.Unwatched() > 0 {
				f.poke()
			}
		}
	}
}

// cover adds to c the folders past the budget, to be read whole; take:
// c is a Take's (too many: Lost, and the walk finds them again). A
// fanotify feed hears nothing of its disk's unmount: it is Lost once its
// root is another file system.
func (f *Feed) cover(c *Changes, take bool) {
	if f.ext.fan != nil {
		if why := f.ext.fan.gone(f.root); why != "" && !c.Lost {
			c.Lost, c.Why = true, why
		}
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.ext.unwatched)
	switch {
	case n == 0 || c.Lost:
		return
	case n > maxUnwatched:
		c.Lost, c.Why = true, fmt.Sprintf("%d folders past the watch budget (a walk reads them)", n)
		if take {
			clear(f.ext.unwatched)
		}
		return
	}
	if c.Folders == nil {
		c.Folders = make(map[string]struct{}, n)
	}
	for rel := range f.ext.unwatched {
		c.Folders[rel] = struct{}{}
		delete(c.Named, rel)
	}
}

// watchBudgeted is Watch for an inotify feed: a watch when the budget has
// room or the folder is watched already, else the folder is unwatched.
// It returns the watch's error (nil when unwatched).
func (f *Feed) watchBudgeted(dir int, rel, p string, flags uint32) error {
	var st unix.Stat_t
	var ino inode
	if unix.Fstat(dir, &st) == nil {
		ino = inode{st.Dev, st.Ino}
	}
	reserved := f.reserveWatch()
	if !reserved && (ino == inode{} || !f.watching(ino, rel)) {
		f.pastBudget(dir, rel)
		return nil
	}
	f.mu.Lock()
	wd, err := unix.InotifyAddWatch(f.fd, p, f.mask|flags)
	if err == nil {
		f.wds[int32(wd)] = rel
		f.watched(ino, int32(wd), rel)
	}
	f.mu.Unlock()
	if reserved {
		GiveWatches(1)
	}
	return err
}
