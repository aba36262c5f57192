package tree

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rambar/changefeed"
	"rambar/internal/testtree"
)

// watchesOf counts the inotify watches the descriptor fd of this process
// holds (its fdinfo's wd lines).
func watchesOf(t *testing.T, fd int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", fd))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "inotify wd:")
}

// TestStillWatchWatchesAFileOfManyNamesOnce: a file of forty names in
// four folders (a package store's file linked into node_modules) costs
// the still watch one watch, not one per name, and a write through any
// name after the scan still ends the stillness.
func TestStillWatchWatchesAFileOfManyNamesOnce(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, "store/f", "data")
	for i := range 40 {
		d := filepath.Join(root, fmt.Sprintf("pkg%d", i%4))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(root, "store/f"), filepath.Join(d, fmt.Sprintf("n%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	w := NewStillWatch()
	if w == nil {
		t.Skip("no inotify")
	}
	defer w.Close()
	items, _, err := ScanWith(root, 0, nil, Opts{Still: w})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 47 {
		t.Fatalf("scanned %d paths, want 47", len(items))
	}
	// The top, store and pkg0-3, and the file.
	if n := watchesOf(t, w.fd); n != 7 {
		t.Errorf("the still watch holds %d watches, want 7 (six folders, one file)", n)
	}
	if !w.Still() {
		t.Fatal("not still with nothing changed")
	}
	testtree.Write(t, root, "pkg3/n39", "other data") // a name whose inode was watched through another
	if w.Still() {
		t.Error("still after a write through the last name of the file")
	}
}

// TestStillWatchStaysWithinTheWatchBudget: a still watch takes its
// watches from the change feeds' budget; with fewer left than the tree
// needs it stops adding, is never still (the save looks), and gives what
// it took back when closed.
func TestStillWatchStaysWithinTheWatchBudget(t *testing.T) {
	root := t.TempDir()
	for i := range 6 {
		testtree.Write(t, root, fmt.Sprintf("d%d/f", i), "data")
	}
	stillClosing.Wait() // an earlier test's still watches give theirs back first
	held := 0
	for changefeed.TakeWatch() {
		held++
	}
	t.Cleanup(func() { changefeed.GiveWatches(held) })
	const left = 3
	changefeed.GiveWatches(left)
	held -= left
	w := NewStillWatch()
	if w == nil {
		t.Skip("no inotify")
	}
	if _, _, err := ScanWith(root, 0, nil, Opts{Still: w}); err != nil {
		t.Fatal(err)
	}
	if w.Still() {
		t.Error("still, with the budget too small for the tree's seven folders")
	}
	if n := watchesOf(t, w.fd); n != left {
		t.Errorf("the still watch holds %d watches, want the %d the budget had left", n, left)
	}
	if changefeed.TakeWatch() {
		changefeed.GiveWatches(1)
		t.Error("a watch of the budget was left after the still watch took its share")
	}
	w.Close()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if changefeed.TakeWatch() {
			changefeed.GiveWatches(1)
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the still watch's watches were not given back once it closed")
		}
	}
}
