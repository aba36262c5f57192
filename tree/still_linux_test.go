package tree

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rambar/internal/testtree"

	"golang.org/x/sys/unix"
)

// stillTree writes the tree the still watch tests change: nested folders,
// a file with two names in two folders, and a file a writer holds open
// by a name it then unlinks.
func stillTree(t *testing.T, root string) {
	t.Helper()
	for _, p := range []string{"a/b/f", "a/g", "m/new/1", "m/cur/2", "z", "h/one"} {
		testtree.Write(t, root, p, "data")
	}
	if err := os.Link(filepath.Join(root, "h/one"), filepath.Join(root, "a/two")); err != nil {
		t.Fatal(err)
	}
}

// TestStillWatchSeesEveryChangeAfterTheScan: after a scan that watched
// the tree, every kind of change a program makes (the look's cases, and
// writes through names the scan never read) ends the stillness; reading
// every file, as a save's copy does, does not.
func TestStillWatchSeesEveryChangeAfterTheScan(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, root string) error
		still  bool
	}{
		{"nothing", func(*testing.T, string) error { return nil }, true},
		{"every file read", func(t *testing.T, r string) error {
			return filepath.WalkDir(r, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					_, err = os.ReadFile(p)
				}
				return err
			})
		}, true},
		{"a file rewritten", func(t *testing.T, r string) error {
			return os.WriteFile(filepath.Join(r, "a/b/f"), []byte("new"), 0o644)
		}, false},
		{"a file truncated", func(t *testing.T, r string) error { return os.Truncate(filepath.Join(r, "z"), 1) }, false},
		{"a file's mode", func(t *testing.T, r string) error { return os.Chmod(filepath.Join(r, "a/g"), 0o600) }, false},
		{"a file's times", func(t *testing.T, r string) error {
			return os.Chtimes(filepath.Join(r, "a/g"), time.Unix(1, 0), time.Unix(1, 0))
		}, false},
		{"an xattr", func(t *testing.T, r string) error {
			return unix.Setxattr(filepath.Join(r, "a/g"), "user.still", []byte("x"), 0)
		}, false},
		{"a message filed from new/ to cur/", func(t *testing.T, r string) error {
			return os.Rename(filepath.Join(r, "m/new/1"), filepath.Join(r, "m/cur/1"))
		}, false},
		{"a file removed", func(t *testing.T, r string) error { return os.Remove(filepath.Join(r, "z")) }, false},
		{"a folder made", func(t *testing.T, r string) error { return os.Mkdir(filepath.Join(r, "a/b/new"), 0o755) }, false},
		{"a folder renamed", func(t *testing.T, r string) error {
			return os.Rename(filepath.Join(r, "a/b"), filepath.Join(r, "a/c"))
		}, false},
		{"a write through the other name of a hard link", func(t *testing.T, r string) error {
			return os.WriteFile(filepath.Join(r, "a/two"), []byte("through the link"), 0o644)
		}, false},
		{"the top folder's path given to another folder", func(t *testing.T, r string) error {
			if isMount(r) { // a disk ejected and another mounted there
				if err := unix.Unmount(r, unix.MNT_DETACH); err != nil {
					return err
				}
				return unix.Mount("rambar-test-other", r, "tmpfs", 0, "size=4m")
			}
			if err := os.Rename(r, r+".moved"); err != nil {
				return err
			}
			t.Cleanup(func() { os.RemoveAll(r + ".moved") })
			return os.Mkdir(r, 0o755)
		}, false},
	}
	for _, m := range stillModes {
		for _, tt := range tests {
			t.Run(m.name+"/"+tt.name, func(t *testing.T) {
				root := m.root(t)
				stillTree(t, root)
				w := watchedScan(t, root)
				if w.fan.Load() != m.fan {
					t.Fatalf("the watch used fanotify: %v, want %v", w.fan.Load(), m.fan)
				}
				if err := tt.change(t, root); err != nil {
					t.Fatal(err)
				}
				if got := w.Still(); got != tt.still {
					t.Errorf("still = %v, want %v", got, tt.still)
				}
			})
		}
	}
}

// stillMode is a way a still watch hears a disk, and a disk of that way.
type stillMode struct {
	name string
	fan  bool
	root func(t *testing.T) string
}

// stillModes are the two ways a still watch hears a disk: inotify
// watches, for a folder of a larger file system, and one fanotify
// filesystem mark, for a disk of its own as root (as the tests run).
var stillModes = []stillMode{
	{"inotify", false, func(t *testing.T) string { return filepath.Join(t.TempDir(), "disk") }},
	{"fanotify", true, func(t *testing.T) string {
		root := filepath.Join(t.TempDir(), "disk")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mount("rambar-test-still", root, "tmpfs", 0, "size=16m"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Unmount(root, unix.MNT_DETACH) })
		return root
	}},
}

// isMount reports whether p is a mount point.
func isMount(p string) bool {
	var a, b unix.Stat_t
	return unix.Lstat(p, &a) == nil && unix.Lstat(filepath.Dir(p), &b) == nil && a.Dev != b.Dev
}

// TestStillWatchSeesAWriteThroughAnUnlinkedName: a program holds a file
// open by a name, the file gets other names and the first is unlinked
// (before the scan); its writes after the scan go through the unlinked
// name: seen by that name's folder's watch, or, that folder removed too,
// by the watch on the file itself (it has several names).
func TestStillWatchSeesAWriteThroughAnUnlinkedName(t *testing.T) {
	for _, tt := range []struct {
		name     string
		others   []string
		rmFolder bool
	}{
		{"its folder kept", []string{"a/kept"}, false},
		{"its folder removed", []string{"a/kept", "m/cur/kept"}, true},
	} {
		for _, m := range stillModes {
			t.Run(m.name+"/"+tt.name, func(t *testing.T) {
				root := m.root(t)
				stillTree(t, root)
				testtree.Write(t, root, "p/x", "data")
				f, err := os.OpenFile(filepath.Join(root, "p/x"), os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				for _, o := range tt.others {
					if err := os.Link(filepath.Join(root, "p/x"), filepath.Join(root, o)); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.Remove(filepath.Join(root, "p/x")); err != nil {
					t.Fatal(err)
				}
				if tt.rmFolder {
					if err := os.Remove(filepath.Join(root, "p")); err != nil {
						t.Fatal(err)
					}
				}
				w := watchedScan(t, root)
				if _, err := f.WriteAt([]byte("later"), 0); err != nil {
					t.Fatal(err)
				}
				if w.Still() {
					t.Errorf("a write to %v through its unlinked name went unseen", tt.others)
				}
			})
		}
	}
}

// TestStillWatchThatCannotWatchIsNeverStill: a folder it could not watch
// (gone before it was added) breaks the watch for good; a nil watch (no
// inotify) is never still either.
func TestStillWatchThatCannotWatchIsNeverStill(t *testing.T) {
	root := t.TempDir()
	w := NewStillWatch()
	defer w.Close()
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	w.add(fd, root, ".")
	if !w.Still() {
		t.Fatal("a watched, unchanged folder is not still")
	}
	w.add(fd, root, "gone")
	if w.Still() {
		t.Error("a watch missing a folder is still")
	}
	var none *StillWatch
	none.add(fd, root, ".")
	if none.Still() {
		t.Error("a nil watch is still")
	}
}

// watchedScan scans root with a still watch, which must be still right
// after; the test ends it.
func watchedScan(t *testing.T, root string) *StillWatch {
	t.Helper()
	w := NewStillWatch()
	t.Cleanup(w.Close)
	if _, _, err := ScanWith(root, 0, nil, Opts{Still: w}); err != nil {
		t.Fatal(err)
	}
	if !w.Still() {
		t.Fatal("the watch is not still right after the scan")
	}
	return w
}

// TestStillWatchClosedLeavesTheDiskFree: once a save closes its watch, the
// disk unmounts at once (an eject right after its save): nothing of the
// watch holds it, also when the save looked at the top twice (a scan and
// a rescan with one watch: each opening of the top set a filesystem mark
// and a hold on the top, and the first hold was never let go, so the
// agent kept an eject of a continuously saved disk busy).
func TestStillWatchClosedLeavesTheDiskFree(t *testing.T) {
	for _, m := range stillModes {
		for _, scans := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s, %d scans", m.name, scans), func(t *testing.T) { stillWatchFrees(t, m, scans) })
		}
	}
}

func stillWatchFrees(t *testing.T, m stillMode, scans int) {
	root := m.root(t)
	stillTree(t, root)
	w := NewStillWatch()
	for range scans {
		if _, _, err := ScanWith(root, 0, nil, Opts{Still: w}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if !m.fan {
		return // a folder of a larger file system: nothing to unmount
	}
	if err := unix.Unmount(root, 0); err != nil {
		t.Fatalf("unmount right after the watch closed: %v", err)
	}
}
