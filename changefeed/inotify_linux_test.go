//go:build linux

package changefeed

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openWatched opens a feed on root with every folder named watched, and
// takes the first (lost) changes.
func openWatched(t *testing.T, root string, ignored func(string, string) bool, folders ...string) *Feed {
	t.Helper()
	return openWalked(t, root, Options{Ignored: ignored}, folders...)
}

// settle waits until the reader has taken what the kernel queued.
func settle(t *testing.T, f *Feed, want func(Changes) bool) Changes {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if c := f.Peek(); want(c) {
			return c
		}
	}
	c := f.Peek()
	t.Fatalf("the feed never saw the change: %+v", c)
	return c
}

func TestFeedNamesTheFoldersThatChanged(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "a/b", "c"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := openWatched(t, root, func(folder, name string) bool { return folder == "." && name == ".marker" }, "a", "a/b", "c")
	if f.Watched() != 4 {
		t.Fatalf("watched %d folders, want 4", f.Watched())
	}
	tests := []struct {
		name string
		do   func() error
		want []string
	}{
		{"write", func() error { return os.WriteFile(filepath.Join(root, "a/b/x"), []byte("x"), 0o644) }, []string{"a/b"}},
		{"rewrite", func() error { return os.WriteFile(filepath.Join(root, "a/b/x"), []byte("yy"), 0o644) }, []string{"a/b"}},
		{"chmod", func() error { return os.Chmod(filepath.Join(root, "a/b/x"), 0o600) }, []string{"a/b"}},
		{"xattr", func() error { return unix.Setxattr(filepath.Join(root, "a/b/x"), "user.k", []byte("v"), 0) }, []string{"a/b"}},
		{"rename across folders", func() error { return os.Rename(filepath.Join(root, "a/b/x"), filepath.Join(root, "c/x")) }, []string{"a/b", "c"}},
		{"folder moved", func() error { return os.Rename(filepath.Join(root, "a/b"), filepath.Join(root, "c/b")) }, []string{"a", "c"}},
		{"folder removed", func() error { return os.RemoveAll(filepath.Join(root, "c/b")) }, []string{"c", "a/b"}},
		{"at the top", func() error { return os.WriteFile(filepath.Join(root, "top"), nil, 0o644) }, []string{"."}},
		{"hard link", func() error { return os.Link(filepath.Join(root, "top"), filepath.Join(root, "a/top")) }, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(); err != nil {
				t.Fatal(err)
			}
			c := settle(t, f, func(c Changes) bool {
				for _, w := range tt.want[:1] {
					if _, ok := c.Folders[w]; !ok {
						return false
					}
				}
				return true
			})
			if c.Lost || c.Paths == 0 || c.Last.IsZero() {
				t.Fatalf("changes %+v", c)
			}
			for _, w := range tt.want[:1] {
				if _, ok := c.Folders[w]; !ok {
					t.Errorf("folder %q not named: %v", w, c.Folders)
				}
			}
			time.Sleep(20 * time.Millisecond)
			f.Take()
		})
	}
	// RAMBar's own marker is no change of the user's.
	if err := os.WriteFile(filepath.Join(root, ".marker"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if c := f.Take(); !c.Empty() {
		t.Fatalf("the marker counted as a change: %+v", c)
	}
}

func TestFeedCountsPathsNotWrites(t *testing.T) {
	root := t.TempDir()
	f := openWatched(t, root, nil)
	w, err := os.Create(filepath.Join(root, "log"))
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		w.WriteString("line\n")
	}
	w.Close()
	os.WriteFile(filepath.Join(root, "other"), nil, 0o644)
	c := settle(t, f, func(c Changes) bool { return c.Paths >= 2 })
	time.Sleep(20 * time.Millisecond)
	if c = f.Peek(); c.Paths != 2 {
		t.Fatalf("%d paths counted, want 2", c.Paths)
	}
}

// TestFeedOverflowIsLost makes the kernel's queue overflow (the reader
// held while more events come than it queues): the feed says it lost
// changes, so the next save walks everything.
func TestFeedOverflowIsLost(t *testing.T) {
	root := t.TempDir()
	f := openWatched(t, root, nil)
	c := overflow(t, f, root, "/proc/sys/fs/inotify/max_queued_events")
	if c.Why == "" {
		t.Fatal("a lost feed says nothing of why")
	}
	if c := f.Take(); !c.Lost {
		t.Fatal("take forgot the loss")
	}
}

func TestFeedStopsWhenClosed(t *testing.T) {
	root := t.TempDir()
	f := openWatched(t, root, nil)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "x"), nil, 0o644)
	time.Sleep(20 * time.Millisecond)
	if c := f.Peek(); !c.Empty() {
		t.Fatalf("a closed feed saw %+v", c)
	}
}

// TestFeedNamesTheEntriesThatChanged: a take gives, for each folder, the
// names in it that changed (a rename both names; a folder's own change
// none), so that a save looks at those entries only; past maxNames
// names, the folders heard of from then on are read whole.
func TestFeedNamesTheEntriesThatChanged(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := openWatched(t, root, nil, "a", "b")
	os.WriteFile(filepath.Join(root, "a/x"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "a/y"), []byte("y"), 0o644)
	os.Rename(filepath.Join(root, "a/y"), filepath.Join(root, "b/z"))
	os.Chmod(filepath.Join(root, "b"), 0o700) // b's own entry, in the top folder
	settle(t, f, func(c Changes) bool { return c.Paths >= 4 })
	c := f.Take()
	want := map[string][]string{"a": {"x", "y"}, "b": {"z"}, ".": {"b"}}
	for folder, names := range want {
		got := c.Named[folder]
		if len(got) != len(names) {
			t.Errorf("%s: names %v, want %v", folder, got, names)
		}
		for _, n := range names {
			if _, ok := got[n]; !ok {
				t.Errorf("%s: %q not named: %v", folder, n, got)
			}
		}
	}
	// More names than a feed keeps: the folder is then read whole.
	for i := 0; i <= maxNames; i += 1000 {
		for j := i; j < min(i+1000, maxNames+1); j++ {
			if err := os.WriteFile(filepath.Join(root, "a", "f"+strconv.Itoa(j)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f.Peek() // drains the kernel's queue
	}
	c = f.Take()
	if _, named := c.Named["a"]; named || c.Lost {
		t.Fatalf("after %d names the folder is still named (lost: %v)", maxNames+1, c.Lost)
	}
	if _, dirty := c.Folders["a"]; !dirty {
		t.Fatal("the folder is not dirty")
	}
}
