package keeper

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rambar/snapstore"
	"rambar/tree"

	"rambar/ramdisk"
)

// sameAsCopy checks that the tree at root is the tree copied to want
// (cp -a): contents, modes, times, symlinks, xattrs and which paths are
// hard links of one file.
func sameAsCopy(t *testing.T, what, want, root string) {
	t.Helper()
	a, err := tree.DigestOf(want, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tree.DigestOf(root, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := a.Diff(b, 5); len(d) > 0 {
		t.Errorf("%s: differs at %v", what, d)
	}
	if g, w := hardLinkGroups(t, root), hardLinkGroups(t, want); !slices.Equal(g, w) {
		t.Errorf("%s: hard links %q, want %q", what, g, w)
	}
}

// copyTree copies root to dir as cp -a does (hard links kept as links).
func copyTree(t *testing.T, root, dir string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", root+"/.", dir).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v %s", err, out)
	}
	os.Remove(filepath.Join(dir, tree.MarkerName))
}

// TestHardLinkTargetsFollowFolderRenames: a file with two names, the first
// (in scan order) inside a folder that is renamed, or the second inside a
// folder renamed so that it comes first: the saves after the rename
// (a delta, then a full manifest) restore the two names as one file, and
// every snapshot still restores.
func TestHardLinkTargetsFollowFolderRenames(t *testing.T) {
	for _, c := range []struct {
		name, first, second, from, to string
	}{
		{"first name's folder renamed", "a/x", "z/y", "a", "m"},
		{"second name's folder renamed to come first", "k/y", "m/x", "m", "b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			k, v := liveDisk(t, "Links", "32m", 10)
			write(t, v.MountPoint, c.first, "shared")
			write(t, v.MountPoint, "other/file", "1")
			os.MkdirAll(filepath.Join(v.MountPoint, filepath.Dir(c.second)), 0o755)
			if err := os.Link(filepath.Join(v.MountPoint, c.first), filepath.Join(v.MountPoint, c.second)); err != nil {
				t.Fatal(err)
			}
			copies := t.TempDir()
			save := func(full bool) {
				t.Helper()
				if full {
					k.deltaLimit = func(int) int { return 0 }
				}
				res, err := k.Save(ctx, v, SaveOptions{})
				k.deltaLimit = nil
				if err != nil {
					t.Fatal(err)
				}
				copyTree(t, v.MountPoint, filepath.Join(copies, res.Snapshot))
			}
			save(false)
			if err := os.Rename(filepath.Join(v.MountPoint, c.from), filepath.Join(v.MountPoint, c.to)); err != nil {
				t.Fatal(err)
			}
			write(t, v.MountPoint, "other/file", "2")
			save(false)
			write(t, v.MountPoint, "other/file", "3")
			save(true)
			restoreEach(t, k, v, "32m", func(s snapstore.Snapshot, root string) {
				sameAsCopy(t, s.ID, filepath.Join(copies, s.ID), root)
			})
		})
	}
}

// TestRandomChangesWithLinksAndRenamesRestoreEverySnapshot: 64 saves of a
// tree changed at random before each, as package managers and builds do:
// files edited, added and removed, folders copied as hard-link farms
// (cp -al), renamed, moved into others and removed, links added. A copy of
// the tree is kept at each save; every snapshot (deltas and, now and then,
// full manifests) restores to its copy, hard links included.
func TestRandomChangesWithLinksAndRenamesRestoreEverySnapshot(t *testing.T) {
	ctx := context.Background()
	k, v := liveDisk(t, "Random", "256m", 100)
	k.deltaLimit = func(int) int { return 40 } // a compaction every few saves
	root := v.MountPoint
	r := rand.New(rand.NewSource(28))
	for i := 0; i < 30; i++ {
		write(t, root, fmt.Sprintf("store/p%d/f%d", i%4, i), fmt.Sprint("content ", i))
	}
	write(t, root, "keep.txt", "never removed: the disk is never empty")
	copies := t.TempDir()
	saves := 0
	for i := 0; saves < 64 && i < 200; i++ {
		for n := 1 + r.Intn(3); n > 0; n-- {
			randomChange(t, r, root, i)
		}
		res, err := k.Save(ctx, v, SaveOptions{})
		if err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
		if !res.Unchanged {
			saves++
			copyTree(t, root, filepath.Join(copies, res.Snapshot))
		}
	}
	snaps := restoreEach(t, k, v, "256m", func(s snapstore.Snapshot, got string) {
		sameAsCopy(t, s.ID, filepath.Join(copies, s.ID), got)
	})
	if len(snaps) != saves || saves < 64 {
		t.Errorf("%d snapshots listed, %d saved, want 64", len(snaps), saves)
	}
	t.Logf("%d saves with random changes, links and renames; every one of %d snapshots restored to its copy", saves, len(snaps))
}

// randomChange makes one random change under root (step i names new paths).
func randomChange(t *testing.T, r *rand.Rand, root string, i int) {
	t.Helper()
	var dirs, files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		switch {
		case err != nil || rel == tree.MarkerName:
		case d.IsDir() && rel != ".":
			dirs = append(dirs, rel)
		case d.Type().IsRegular() && rel != "keep.txt":
			files = append(files, rel)
		}
		return nil
	})
	pick := func(l []string) string {
		if len(l) == 0 {
			return ""
		}
		return l[r.Intn(len(l))]
	}
	at := func(rel string) string { return filepath.Join(root, rel) }
	name := fmt.Sprintf("n%d-%d", i, r.Intn(1000))
	var err error
	switch f, d := pick(files), pick(dirs); r.Intn(7) {
	case 0: // edit, in place: every name of the file sees it
		if f != "" {
			err = os.WriteFile(at(f), []byte(fmt.Sprint("edited ", i, " ", r.Int())), 0o644)
		}
	case 1: // add
		err = os.WriteFile(at(filepath.Join(d, name)), []byte(name), 0o644)
	case 2: // remove a name
		if f != "" {
			err = os.Remove(at(f))
		}
	case 3: // a hard-link farm of a folder (cp -al)
		if d != "" && !strings.Contains(d, "/") {
			var out []byte
			if out, err = exec.Command("cp", "-al", at(d), at("farm-"+name)).CombinedOutput(); err != nil {
				err = fmt.Errorf("%v %s", err, out)
			}
		}
	case 4: // rename a folder, maybe into another
		if d != "" {
			to := name
			if o := pick(dirs); o != "" && !strings.HasPrefix(o+"/", d+"/") && r.Intn(2) == 0 {
				to = filepath.Join(o, name)
			}
			err = os.Rename(at(d), at(to))
		}
	case 5: // another name for a file, elsewhere
		if f != "" {
			err = os.Link(at(f), at(filepath.Join(d, "link-"+name)))
		}
	case 6: // remove a folder
		if d != "" && len(dirs) > 6 {
			err = os.RemoveAll(at(d))
		}
	}
	if err != nil {
		t.Fatalf("change %d: %v", i, err)
	}
}

// TestTopFolderMetadataIsSavedEachSave: the disk's top folder's mode and
// times as of each save are restored, not those of the first save (a delta
// carried the first save's root entry forward).
func TestTopFolderMetadataIsSavedEachSave(t *testing.T) {
	ctx := context.Background()
	k, v := liveDisk(t, "Top", "16m", 5)
	write(t, v.MountPoint, "a", "1")
	if _, err := k.Save(ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	write(t, v.MountPoint, "a", "2")
	os.Chmod(v.MountPoint, 0o750)
	when := mustTime(t, "2031-05-06T07:08:09Z")
	os.Chtimes(v.MountPoint, when, when)
	res, err := k.Save(ctx, v, SaveOptions{})
	if err != nil || res.Unchanged {
		t.Fatal(res, err)
	}
	root := mountTmpfs(t, "16m")
	if _, err := k.Restore(ctx, ramdisk.Volume{Name: "Top", MountPoint: root}, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(root)
	if err != nil || fi.Mode().Perm() != 0o750 || !fi.ModTime().Equal(when) {
		t.Errorf("restored top folder: %v %v, want 0750 and %v (%v)", fi.Mode().Perm(), fi.ModTime(), when, err)
	}
}

// mustTime parses an RFC 3339 time.
func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
