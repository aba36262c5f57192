//go:build linux

package changefeed

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tree makes n folders under root ("d0" … "d<n-1>") and returns their
// places, the top first.
func tree(t *testing.T, root string, n int) []string {
	t.Helper()
	rels := []string{"."}
	for i := range n {
		rel := fmt.Sprintf("d%d", i)
		if err := unix.Mkdirat(unix.AT_FDCWD, filepath.Join(root, rel), 0o755); err != nil {
			t.Fatal(err)
		}
		rels = append(rels, rel)
	}
	return rels
}

// walkedTree makes n folders under root (tree), opens a feed on root,
// closed when the test ends, and gives it every folder (walk): the feed
// and the folders' places, the top first.
func walkedTree(t *testing.T, root string, n int) (*Feed, []string) {
	t.Helper()
	rels := tree(t, root, n)
	f, err := Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	walk(t, f, root, rels)
	return f, rels
}

// walk gives f every folder of rels, as a save's scan does.
func walk(t *testing.T, f *Feed, root string, rels []string) {
	t.Helper()
	for _, rel := range rels {
		fd, err := unix.Open(filepath.Join(root, rel), unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Watch(fd, rel)
		unix.Close(fd)
	}
}

// TestWatchBudget: inotify feeds together hold at most the budget; the
// folders past it (no fanotify mark may follow them) are given by every
// take and peek to be read whole (a change there comes back with no
// event), the saves are woken for them, a folder watched already stays
// watched at a walk made at the budget, and a feed closed gives its
// watches back to the others.
func TestWatchBudget(t *testing.T) {
	defer setWatchBudget(10)()
	defer setMarkBudget(-1)()
	root, other := t.TempDir(), t.TempDir()
	f, rels := walkedTree(t, root, 30)
	if st := f.Status(); st.Kind != KindInotify || st.Watches != 10 || st.Unwatched != 21 || st.Budget != 10 {
		t.Fatalf("status %+v, want 10 watches and 21 folders past the budget", st)
	}
	if n := inotifyWatches(t); n > 10 {
		t.Fatalf("the process holds %d inotify watches, budget 10", n)
	}
	f.Take()

	// A write in a folder past the budget: no event, but every take has it.
	past := rels[len(rels)-1]
	if err := os.WriteFile(filepath.Join(root, past, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, get := range []struct {
		name string
		get  func() Changes
	}{{"peek", f.Peek}, {"take", f.Take}, {"take again", f.Take}} {
		c := get.get()
		if _, ok := c.Folders[past]; !ok || c.Lost {
			t.Fatalf("%s: %s past the budget not given: %+v", get.name, past, c)
		}
		if _, named := c.Named[past]; named {
			t.Fatalf("%s: %s is given at some names, not to read whole", get.name, past)
		}
	}

	// The saves are woken for the folders past the budget.
	select {
	case <-f.Wake():
	case <-time.After(coverEvery + 2*time.Second):
		t.Fatalf("no wake-up within %s for folders past the budget", coverEvery)
	}

	// A walk again at the budget keeps the watched folders watched.
	walk(t, f, root, rels)
	if st := f.Status(); st.Watches != 10 || st.Unwatched != 21 {
		t.Fatalf("walked again: %+v", st)
	}

	// A second feed shares the budget; once the first is closed, its
	// next walk watches what the budget allows.
	g, orels := walkedTree(t, other, 5)
	if g.Watched() != 0 || g.Unwatched() != 6 {
		t.Fatalf("a second feed at the budget: %+v", g.Status())
	}
	f.Close()
	walk(t, g, other, orels)
	if st := g.Status(); st.Watches != 6 || st.Unwatched != 0 || WatchesHeld() != 6 {
		t.Fatalf("after the first feed closed: %+v, %d held", st, WatchesHeld())
	}
}

// TestWatchBudgetTooManyIsLost: past maxUnwatched folders a take is Lost
// (a walk, which finds them again) rather than a list of folders.
func TestWatchBudgetTooManyIsLost(t *testing.T) {
	defer setWatchBudget(1)()
	defer setMarkBudget(-1)()
	root := t.TempDir()
	f, err := Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Take()
	f.mu.Lock()
	f.ext.unwatched = map[string]struct{}{}
	for i := range maxUnwatched + 1 {
		f.ext.unwatched[fmt.Sprint("d", i)] = struct{}{}
	}
	f.mu.Unlock()
	if c := f.Take(); !c.Lost || len(c.Folders) != 0 {
		t.Fatalf("take with %d folders past the budget: lost %v, %d folders", maxUnwatched+1, c.Lost, len(c.Folders))
	}
	if f.Unwatched() != 0 {
		t.Fatalf("%d folders still kept after a lost take", f.Unwatched())
	}
}

// TestTakeWatch: the watches others take (a save's still watch) count in
// the budget with the feeds', until given back, and so does a watch a
// feed is adding (reserved before its descriptor has it).
func TestTakeWatch(t *testing.T) {
	defer setWatchBudget(3)()
	root := t.TempDir()
	f, _ := walkedTree(t, root, 1) // 2 watches, held by the feed until the test ends
	tests := []struct {
		name string
		do   func() bool
		want bool
		held int
	}{
		{"one left", TakeWatch, true, 3},
		{"none left", TakeWatch, false, 3},
		{"given back", func() bool { GiveWatches(1); return TakeWatch() }, true, 3},
		{"all given back", func() bool { GiveWatches(5); return true }, true, 2},
		{"a feed reserves the last", f.reserveWatch, true, 3},
		{"none left while the feed adds it", TakeWatch, false, 3},
		{"the feed's added watch in its place", func() bool { GiveWatches(1); return true }, true, 2},
	}
	for _, tt := range tests {
		if got := tt.do(); got != tt.want || WatchesHeld() != tt.held {
			t.Errorf("%s: %v with %d held, want %v with %d", tt.name, got, WatchesHeld(), tt.want, tt.held)
		}
	}
}

// TestFoldersPastTheBudgetMarked: the folders past the watch budget are
// followed by fanotify inode marks, within their own budget: a change in
// one is heard and named (no walk), the rest past both budgets are
// unwatched, a marked folder removed gives its mark back, and no inotify
// watch is added past the budget.
func TestFoldersPastTheBudgetMarked(t *testing.T) {
	defer setWatchBudget(4)()
	defer setMarkBudget(20)()
	root := t.TempDir()
	f, rels := walkedTree(t, root, 30)
	if st := f.Status(); st.Watches != 4 || st.Marks != 20 || st.Unwatched != 7 {
		t.Fatalf("status %+v, want 4 watches, 20 marks, 7 folders unwatched", st)
	}
	if n := inotifyWatches(t); n > 4 {
		t.Fatalf("the process holds %d inotify watches, budget 4", n)
	}
	f.Take()
	var marked string
	for _, rel := range rels[1:] {
		if _, unwatched := f.ext.unwatched[rel]; !unwatched && rel != "." {
			marked = rel // the last folder followed, by watch or mark
		}
	}
	tests := []struct {
		name string
		do   func() error
		want map[string]string
	}{
		{"write", func() error { return os.WriteFile(filepath.Join(root, marked, "x"), nil, 0o644) }, map[string]string{marked: "x"}},
		{"chmod of the folder", func() error { return os.Chmod(filepath.Join(root, marked), 0o700) }, map[string]string{marked: "", ".": marked}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(); err != nil {
				t.Fatal(err)
			}
			settleFolders(t, f, tt.want)
			c := f.Take()
			checkNamed(t, c, tt.want)
		})
	}
	if err := os.RemoveAll(filepath.Join(root, marked)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); f.Marks() != 19; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d marks after a marked folder went, want 19", f.Marks())
		}
		f.Peek()
	}
}
