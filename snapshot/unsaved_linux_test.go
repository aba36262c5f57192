package snapshot

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"rambar/snapstore"
)

// TestUnsavedSinceNamesWhatTheLastSaveLacks: on real tmpfs, what a disk
// holds since its save: files added or changed and new folders named (a
// folder that only gained an entry is not), paths removed named apart;
// with no index everything on the disk is unsaved.
func TestUnsavedSinceNamesWhatTheLastSaveLacks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		noIndex  bool
		change   func(t *testing.T, root string)
		held     []string
		heldN    int
		gone     []string
		anything bool
	}{
		{"nothing", false, func(*testing.T, string) {}, nil, 0, nil, false},
		{"a file added to a saved folder", false, func(t *testing.T, root string) { put(t, root, "src/new.go", "x") },
			[]string{"src/new.go"}, 1, nil, true},
		{"a new folder", false, func(t *testing.T, root string) { put(t, root, "build/out/a.o", "o") },
			[]string{"build", "build/out"}, 3, nil, true},
		{"a file changed and one removed", false, func(t *testing.T, root string) {
			put(t, root, "notes.txt", "changed")
			if err := os.Remove(filepath.Join(root, "src/main.go")); err != nil {
				t.Fatal(err)
			}
		}, []string{"notes.txt"}, 1, []string{"src/main.go"}, true},
		{"no index", true, func(*testing.T, string) {}, []string{"notes.txt", "src"}, 3, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := sameTmpfs(t)
			put(t, root, "notes.txt", "saved")
			put(t, root, "src/main.go", "package main")
			s := &Store{Store: &snapstore.Store{Dir: t.TempDir()}}
			if _, err := s.Save(t.Context(), root, "disk", 3, nil, nil); err != nil {
				t.Fatal(err)
			}
			tc.change(t, root)
			idx := s.LoadIndex()
			if tc.noIndex {
				idx = nil
			}
			u, err := UnsavedSince(root, idx, false, 2)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(u.Held.Paths, tc.held) || u.Held.N != tc.heldN || !slices.Equal(u.Gone.Paths, tc.gone) || u.Any != tc.anything {
				t.Errorf("unsaved = held %v (%d), gone %v, any %v; want %v (%d), %v, %v",
					u.Held.Paths, u.Held.N, u.Gone.Paths, u.Any, tc.held, tc.heldN, tc.gone, tc.anything)
			}
		})
	}
}

// put writes data at rel under root, making its folders.
func put(t *testing.T, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
