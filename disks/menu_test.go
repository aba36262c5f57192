package disks

import (
	"testing"

	"rambar/keeper"
	"rambar/ramdisk"
)

// TestMenuKeepsTheLastWriteBacksConflicts: the menu's entry shows the
// conflicts of a disk's last Mirror write-back until a later one has none;
// a save that wrote nothing back changes nothing; each conflicted
// write-back is heard.
func TestMenuKeepsTheLastWriteBacksConflicts(t *testing.T) {
	two := keeper.WriteBack{Folder: "/home/me/site", Conflicts: []keeper.Conflict{{Path: "a"}, {Path: "b"}}}
	clean := keeper.WriteBack{Folder: "/home/me/site"}
	m := NewMenu(nil)
	heard := 0
	m.Conflicts = func(name string, wb keeper.WriteBack) { heard++ }
	v := ramdisk.Volume{Name: "Site"}
	steps := []struct {
		name   string
		r      keeper.Result
		n      int
		folder string
	}{
		{"conflicts", keeper.Result{Folder: &two}, 2, "/home/me/site"},
		{"kept only (no write-back)", keeper.Result{}, 2, "/home/me/site"},
		{"a clean write-back", keeper.Result{Folder: &clean}, 0, ""},
	}
	for _, s := range steps {
		m.Saved("Site", s.r)
		if n, folder := m.MirrorConflicts(v); n != s.n || folder != s.folder {
			t.Errorf("after %s: %d in %q, want %d in %q", s.name, n, folder, s.n, s.folder)
		}
	}
	if n, _ := m.MirrorConflicts(ramdisk.Volume{Name: "Other"}); n != 0 || heard != 1 {
		t.Errorf("another disk: %d conflicts; heard %d write-backs with conflicts, want 1", n, heard)
	}
}
