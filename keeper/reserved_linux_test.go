package keeper

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"rambar/ramdisk"
)

// TestCachesAtTheRootIsNeverSaved: RAMBar's own folder of app caches at a
// disk's root (`cache on`) is not contents: it is not saved (so never
// restored, nor written into a mirrored folder), and what changes in it
// leaves the disk saved; a folder of that name anywhere else is contents.
func TestCachesAtTheRootIsNeverSaved(t *testing.T) {
	ctx := context.Background()
	k, v := liveDisk(t, "Cache", "16m", 5)
	write(t, v.MountPoint, ramdisk.FallbackLink+"/app/session", "token")
	write(t, v.MountPoint, "proj/Caches/built", "kept")
	res, err := k.Save(ctx, v, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := k.store(mustState(t, k, "Cache")).Manifest(res.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range m.Entries {
		paths = append(paths, e.Path)
	}
	want := []string{".", "proj", "proj/Caches", "proj/Caches/built"}
	if len(paths) != len(want) {
		t.Fatalf("snapshot holds %q, want %q", paths, want)
	}
	write(t, v.MountPoint, ramdisk.FallbackLink+"/app/session", "another token")
	if dirty, err := k.Dirty(v); err != nil || dirty {
		t.Errorf("Dirty after a change in the root's Caches = %v, %v", dirty, err)
	}
}

// TestUsersLostFoundSurvivesAZramDisk: a lost+found the user made on tmpfs
// (one with a file, one empty: each case) is restored onto a zram disk,
// where it is merged with ext4's own lost+found, saved from there, and
// comes back on tmpfs; ext4's own lost+found, left empty, is not saved.
func TestUsersLostFoundSurvivesAZramDisk(t *testing.T) {
	for _, c := range []struct {
		name string
		file bool
	}{{"holding a file", true}, {"empty", false}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			k, v := liveDisk(t, "Found", "16m", 5)
			write(t, v.MountPoint, "work.txt", "1")
			if err := os.Mkdir(filepath.Join(v.MountPoint, "lost+found"), 0o700); err != nil {
				t.Fatal(err)
			}
			if c.file {
				write(t, v.MountPoint, "lost+found/found.txt", "mine")
			}
			if _, err := k.Save(ctx, v, SaveOptions{}); err != nil {
				t.Fatal(err)
			}
			z := ramdisk.Volume{Name: "Found", MountPoint: mountZRAM(t, 32<<20)}
			if _, err := k.Load(ctx, z, nil); err != nil {
				t.Fatal(err)
			}
			write(t, z.MountPoint, "work.txt", "2")
			if _, err := k.Save(ctx, z, SaveOptions{}); err != nil {
				t.Fatal(err)
			}
			back := ramdisk.Volume{Name: "Found", MountPoint: mountTmpfs(t, "16m")}
			if _, err := k.Load(ctx, back, nil); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(filepath.Join(back.MountPoint, "lost+found")); err != nil || !fi.IsDir() {
				t.Fatalf("the user's lost+found did not come back: %v", err)
			}
			if b, err := os.ReadFile(filepath.Join(back.MountPoint, "lost+found/found.txt")); c.file && (err != nil || string(b) != "mine") {
				t.Errorf("lost+found/found.txt = %q, %v", b, err)
			}
		})
	}
	t.Run("ext4's own", func(t *testing.T) {
		ctx := context.Background()
		k := NewKeeper(t.TempDir())
		k.IsMounted = func(string) bool { return true }
		if _, err := k.Setup("Zram", Options{Mode: ramdisk.Keep}); err != nil {
			t.Fatal(err)
		}
		z := ramdisk.Volume{Name: "Zram", MountPoint: mountZRAM(t, 32<<20)}
		if _, err := k.Load(ctx, z, nil); err != nil {
			t.Fatal(err)
		}
		write(t, z.MountPoint, "work.txt", "1")
		res, err := k.Save(ctx, z, SaveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := k.store(mustState(t, k, "Zram")).Manifest(res.Snapshot)
		if err != nil || len(m.Entries) != 2 {
			t.Errorf("snapshot of a zram disk holds %d entries (%v), want the root and work.txt", len(m.Entries), err)
		}
	})
}

// TestCachesOfAMirrorFolderAreContents: on a Mirror disk (where `cache on`
// is refused) a Caches folder at the top is the folder's own: loaded,
// saved, seen by Dirty, its edits written back, never taken for changes
// made outside RAMBar.
func TestCachesOfAMirrorFolderAreContents(t *testing.T) {
	f := newMirror(t, map[string]string{ramdisk.FallbackLink + "/x": "folder's", "a": "a"})
	if got := read(t, f.disk(ramdisk.FallbackLink+"/x")); got != "folder's" {
		t.Fatalf("loaded Caches/x = %q", got)
	}
	f.save()
	write(t, f.v.MountPoint, ramdisk.FallbackLink+"/x", "edited on the disk")
	if dirty, err := f.k.Dirty(f.v); err != nil || !dirty {
		t.Errorf("Dirty after an edit of Caches/x = %v, %v", dirty, err)
	}
	r := f.save()
	if got := read(t, f.inFolder(ramdisk.FallbackLink+"/x")); got != "edited on the disk" {
		t.Errorf("the folder's Caches/x after the save = %q", got)
	}
	if r.Folder != nil && (r.Folder.KeptOutside > 0 || len(r.Folder.Conflicts) > 0) {
		t.Errorf("the write-back took Caches for a change outside RAMBar: %+v", *r.Folder)
	}
}
