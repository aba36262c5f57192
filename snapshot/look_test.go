package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"rambar/internal/testtree"
	"rambar/tree"
)

// TestLookAtTellsWhatChangedSinceTheScan changes a scanned tree as
// programs do while a save copies it and checks that the look names the
// paths that changed, and whether more than files' contents did.
func TestLookAtTellsWhatChangedSinceTheScan(t *testing.T) {
	tests := []struct {
		name   string
		change func(root string) error
		want   []string // paths named (all of them)
		moved  bool
	}{
		{"nothing", func(string) error { return nil }, nil, false},
		{"a file rewritten", func(r string) error {
			return os.WriteFile(filepath.Join(r, "a/b/f"), []byte("longer data"), 0o644)
		}, []string{"a/b/f"}, false},
		{"a file's mode", func(r string) error { return os.Chmod(filepath.Join(r, "a/g"), 0o600) }, []string{"a/g"}, false},
		{"a message filed from new/ to cur/", func(r string) error {
			return os.Rename(filepath.Join(r, "m/new/1"), filepath.Join(r, "m/cur/1"))
		}, []string{"m/cur", "m/new"}, true},
		{"a file removed", func(r string) error { return os.Remove(filepath.Join(r, "a/b/f")) }, []string{"a/b"}, true},
		{"a folder renamed", func(r string) error {
			return os.Rename(filepath.Join(r, "a/b"), filepath.Join(r, "a/c"))
		}, []string{"a"}, true},
		{"a file replaced by a folder", func(r string) error {
			if err := os.Remove(filepath.Join(r, "z")); err != nil {
				return err
			}
			return os.Mkdir(filepath.Join(r, "z"), 0o755)
		}, []string{"z"}, true},
		{"a file added at the top", func(r string) error {
			return os.WriteFile(filepath.Join(r, "new"), nil, 0o644)
		}, []string{"."}, true},
		{"the marker is not contents", func(r string) error {
			if err := os.WriteFile(filepath.Join(r, tree.MarkerName), []byte("id"), 0o644); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(r, "a/b/f"), []byte("longer data"), 0o644)
		}, []string{"a/b/f"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for _, p := range []string{"a/b/f", "a/g", "m/new/1", "m/new/2", "m/cur/3", "z"} {
				testtree.Write(t, root, p, "data")
			}
			items, err := tree.Scan(root)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond) // past the file system's clock tick
			if err := tt.change(root); err != nil {
				t.Fatal(err)
			}
			var stop atomic.Bool
			diffs, moved, err := lookAt(root, items, 100, false, &stop)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(diffs.Paths)
			if !slices.Equal(diffs.Paths, tt.want) || diffs.N != len(tt.want) || moved != tt.moved {
				t.Errorf("look = %q (%d), moved %v; want %q, moved %v", diffs.Paths, diffs.N, moved, tt.want, tt.moved)
			}
		})
	}
}

// TestLookAtStopsWhenTold checks that a look whose stop is set ends with
// errStopped (a round that no longer needs it does not wait for it).
func TestLookAtStopsWhenTold(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, "a/f", "data")
	items, err := tree.Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	stop.Store(true)
	if _, _, err := lookAt(root, items, 100, false, &stop); !errors.Is(err, errStopped) {
		t.Fatalf("look with stop set = %v, want errStopped", err)
	}
}
