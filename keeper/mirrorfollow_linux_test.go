//go:build linux

package keeper

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"rambar/internal/testtree"
)

// TestMirrorSavesWriteBackEveryChange: the menu-bar app saves a Mirror
// disk by its change feed (it follows kept and mirrored disks alike), the
// CLI by walking it. Through 60 rounds of random changes (files made,
// rewritten, truncated, renamed across folders, hard-linked, chmod'ed,
// given xattrs; folders made, moved, removed, moved out and back), each
// save (after the first, by the feed) leaves the folder holding exactly
// what the disk does, its files of several names as such, with no
// conflict: a mode the write-back sets on a
// file of several names is not taken, at another of its names, for the
// user's change.
func TestMirrorSavesWriteBackEveryChange(t *testing.T) {
	for _, way := range liveWays {
		t.Run(way, func(t *testing.T) {
			f := newMirror(t, map[string]string{"index.html": "<h1>", "css/site.css": "body{}", "img/a/b.txt": "b"})
			sv := saverOf(t, f.k, f.v, way)
			if _, err := sv.save(f.ctx); err != nil {
				t.Fatal(err)
			}
			sv.fed = 0
			ch := testtree.NewChanger(f.v.MountPoint, testtree.Seed())
			for round := range 60 {
				var did []string
				for range 1 + ch.Intn(6) {
					did = append(did, ch.Change())
				}
				r, err := sv.save(f.ctx)
				if err != nil {
					t.Fatalf("round %d (%v): %v", round, did, err)
				}
				if r.Folder != nil && len(r.Folder.Conflicts) > 0 {
					t.Fatalf("round %d (%v): conflicts %v", round, did, r.Folder.Conflicts)
				}
				want, got := digest(t, f.v.MountPoint), digest(t, f.folder)
				if diff := want.Diff(got, 5); len(diff) > 0 {
					t.Fatalf("round %d (%v): the folder differs from the disk at %v", round, did, diff)
				}
				if w, g := hardLinkGroups(t, f.v.MountPoint), hardLinkGroups(t, f.folder); !slices.Equal(w, g) {
					t.Fatalf("round %d (%v): the disk's files of several names are %v, the folder's %v", round, did, w, g)
				}
			}
			if way == "feed" && sv.fed < 50 {
				t.Errorf("%d of 60 saves went by the feed", sv.fed)
			}
			t.Logf("%s: 60 rounds, %d saves by the feed, the folder the disk's after each", way, sv.fed)
		})
	}
}

// TestMirrorModeOfALinkIsNotAConflict: a file of two names in the folder;
// on the disk one name is renamed and the file's mode changed. The
// write-back sets the mode on the folder's file in place through the name
// that stays, which changes the other name too: removing that name is
// not a conflict with the user, and the folder ends as the disk.
func TestMirrorModeOfALinkIsNotAConflict(t *testing.T) {
	f := newMirrorFill(t, func(folder string) {
		write(t, folder, "a/first", "shared")
		if err := os.Link(filepath.Join(folder, "a/first"), filepath.Join(folder, "b/second")); err != nil {
			os.MkdirAll(filepath.Join(folder, "b"), 0o755)
			if err := os.Link(filepath.Join(folder, "a/first"), filepath.Join(folder, "b/second")); err != nil {
				t.Fatal(err)
			}
		}
	})
	if err := os.Rename(f.disk("b/second"), f.disk("b/third")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(f.disk("b/third"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := f.save()
	if r.Folder == nil || len(r.Folder.Conflicts) > 0 {
		t.Fatalf("write-back %+v", r.Folder)
	}
	absent(t, f.inFolder("b/second"))
	sameTree(t, digest(t, f.v.MountPoint), digest(t, f.folder))
}

// TestMirrorNewNamesOfAFileAreLinks: names the disk gives a file the
// folder already has are links in the folder too: one that sorts before
// the file's names (the new first name), and one in a folder moved on the
// disk (a name whose first name the write-back does not touch).
func TestMirrorNewNamesOfAFileAreLinks(t *testing.T) {
	f := newMirror(t, map[string]string{"m/file": "shared bytes", "sub/x": "x"})
	if err := os.Link(f.disk("m/file"), f.disk("a-first")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(f.disk("m/file"), f.disk("sub/y")); err != nil {
		t.Fatal(err)
	}
	f.save()
	if err := os.Rename(f.disk("sub"), f.disk("moved")); err != nil {
		t.Fatal(err)
	}
	f.save()
	want := []string{"a-first = m/file = moved/y"}
	if got := hardLinkGroups(t, f.folder); !slices.Equal(got, want) {
		t.Fatalf("the folder's files of several names: %v, want %v", got, want)
	}
	sameTree(t, digest(t, f.v.MountPoint), digest(t, f.folder))
}
