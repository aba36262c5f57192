//go:build linux

package foldersync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder changed again between a refresh and the save after it (an
// install running while the refresh ran): the save's write-back starts
// from what the refresh left (Refresh.Bases), so the folder's newer
// version is kept as a change of the folder's, never undone and never
// kept twice as a conflict copy, and the next refresh takes it.
func TestFolderChangedAgainAfterARefresh(t *testing.T) {
	for _, tc := range []struct {
		name           string
		took, again    string // the folder's version the refresh takes, then the one made after it ("": none)
		disk, andAfter string // what the disk holds after the refresh, and after the next
	}{
		{"deleted, then made again alike (git clean, then an install)", "", "x", "", "x"},
		{"edited, then edited again", "y", "z", "y", "z"},
		{"edited, then deleted", "y", "", "y", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newSync(t, func(folder string) { write(t, folder, "pkg/a.js", "x") })
			set := func(v string) {
				p := filepath.Join(f.folder, "pkg/a.js")
				if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				if v != "" {
					write(t, f.folder, "pkg/a.js", v)
				}
			}
			set(tc.took)
			f.save()
			rec := f.record()
			r := &Refresh{Folder: f.folder, Disk: f.disk, S: f.s.Store, Rec: rec}
			err := r.Run(f.ctx)
			rec.Close()
			if err != nil || r.Taken+r.Removed != 1 {
				t.Fatalf("refresh: %v, %+v", err, r.Applied)
			}
			set(tc.again)
			wb := f.saveFrom(r.Bases())
			if got := readOr(f.folder, "pkg/a.js"); got != tc.again {
				t.Errorf("the folder after the save: %q, want %q (the folder's, made after the refresh)", got, tc.again)
			}
			if got := readOr(f.disk, "pkg/a.js"); got != tc.disk {
				t.Errorf("the disk after the save: %q, want %q", got, tc.disk)
			}
			if len(wb.Conflicts) > 0 {
				t.Errorf("conflicts: %+v", wb.Conflicts)
			}
			f.refresh(&Refresh{})
			if got := readOr(f.disk, "pkg/a.js"); got != tc.andAfter {
				t.Errorf("the disk after the next refresh: %q, want %q", got, tc.andAfter)
			}
			f.same("the next refresh")
			ents, _ := os.ReadDir(filepath.Join(f.folder, "pkg"))
			for _, e := range ents {
				if strings.Contains(e.Name(), "conflict") {
					t.Errorf("a conflict copy: %s", e.Name())
				}
			}
		})
	}
}

// readOr is the contents of root/rel, "" when it is missing.
func readOr(root, rel string) string {
	b, _ := os.ReadFile(filepath.Join(root, rel))
	return string(b)
}

// A removal the refresh's second look puts off (the folder has the path
// again by the time of the deletions) leaves the disk's version: the save
// after it starts from the record for that path, not from a removal that
// never happened. Here the folder is deleted again before that save: the
// save keeps the folder's deletion (it never makes the folder again from
// the disk), and the next refresh takes it.
func TestRemovalPutOffByTheSecondLook(t *testing.T) {
	f := newSync(t, func(folder string) {
		write(t, folder, "pkg/a.js", "x")
		write(t, folder, "pkg/b.js", "y")
		write(t, folder, "README", "kept")
	})
	pkg := filepath.Join(f.folder, "pkg")
	if err := os.RemoveAll(pkg); err != nil {
		t.Fatal(err)
	}
	f.save()
	rec := f.record()
	r := &Refresh{Folder: f.folder, Disk: f.disk, S: f.s.Store, Rec: rec,
		Decided: func() { write(t, f.folder, "pkg/a.js", "x") }}
	err := r.Run(f.ctx)
	rec.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := readOr(f.disk, "pkg/a.js"); got != "x" {
		t.Fatalf("the disk after the refresh: %q, want %q (its removal put off)", got, "x")
	}
	if err := os.RemoveAll(pkg); err != nil {
		t.Fatal(err)
	}
	wb := f.saveFrom(r.Bases())
	if len(wb.Conflicts) > 0 {
		t.Errorf("conflicts: %+v", wb.Conflicts)
	}
	if _, err := os.Lstat(pkg); !os.IsNotExist(err) {
		t.Errorf("the folder's pkg after the save: %v, want it still deleted", err)
	}
	f.refresh(&Refresh{})
	if _, err := os.Lstat(filepath.Join(f.disk, "pkg")); !os.IsNotExist(err) {
		t.Errorf("the disk's pkg after the next refresh: %v, want it deleted", err)
	}
	f.same("the next refresh")
}
