//go:build linux

package keeper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/snapshot"
	"rambar/tree"

	"rambar/ramdisk"
)

// TestRestoreOfManyEmptyFilesFitsTheDiskItCameFrom: 2,000 empty files and
// 200 folders saved from a 4 MiB tmpfs restore into a 4 MiB tmpfs
// (counting 4 KiB a path refused them: 8.8 MiB); a tree with more paths
// than the disk has inodes is refused before anything is written.
func TestRestoreOfManyEmptyFilesFitsTheDiskItCameFrom(t *testing.T) {
	ctx := context.Background()
	k := NewKeeper(t.TempDir())
	k.IsMounted = func(string) bool { return true }
	if _, err := k.Setup("Empty", Options{Mode: ramdisk.Keep}); err != nil {
		t.Fatal(err)
	}
	v := ramdisk.Volume{Name: "Empty", MountPoint: mountTmpfs(t, "4m")}
	if _, err := k.Load(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	for d := 0; d < 200; d++ {
		dir := filepath.Join(v.MountPoint, fmt.Sprintf("d%04d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := 0; f < 10; f++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(f)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := k.Save(ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	to := ramdisk.Volume{Name: "Empty", MountPoint: mountTmpfs(t, "4m")}
	res, err := k.Restore(ctx, to, RestoreOptions{})
	if err != nil || res.Files != 2000 {
		t.Fatalf("restore into a disk of the same size = %+v, %v", res, err)
	}
	few := ramdisk.Volume{Name: "Empty", MountPoint: mountFS(t, "tmpfs", "size=4m,nr_inodes=1000")}
	if _, err := k.Restore(ctx, few, RestoreOptions{}); !errors.Is(err, ramdisk.ErrNoSpace) || !errors.Is(err, snapshot.ErrNothingWritten) {
		t.Fatalf("restore of 2,200 paths into room for 1,000 = %v, want ErrNoSpace, nothing written", err)
	}
	if ents, _ := os.ReadDir(few.MountPoint); len(ents) > 1 {
		t.Errorf("the refused restore wrote %d paths", len(ents))
	}
}

// TestRoomCheckCountsHolesAndLinksOnce: a tree of a 1 GiB sparse file of
// 4 KiB and a 3 MiB file with three names restores into a 6 MiB disk;
// and a forced restore over a disk holding a hard-linked file counts what
// the disk holds once, refusing (before removing anything) a snapshot
// that does not fit.
func TestRoomCheckCountsHolesAndLinksOnce(t *testing.T) {
	ctx := context.Background()
	k := NewKeeper(t.TempDir())
	k.IsMounted = func(string) bool { return true }
	if _, err := k.Setup("Room", Options{Mode: ramdisk.Keep, Snapshots: 5}); err != nil {
		t.Fatal(err)
	}
	v := ramdisk.Volume{Name: "Room", MountPoint: mountTmpfs(t, "64m")}
	if _, err := k.Load(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(v.MountPoint, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte(strings.Repeat("d", 4096)), 100<<20)
	f.Truncate(1 << 30)
	f.Close()
	write(t, v.MountPoint, "linked", strings.Repeat("l", 3<<20))
	os.Link(filepath.Join(v.MountPoint, "linked"), filepath.Join(v.MountPoint, "two"))
	os.Link(filepath.Join(v.MountPoint, "linked"), filepath.Join(v.MountPoint, "three"))
	small, err := k.Save(ctx, v, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	into := ramdisk.Volume{Name: "Room", MountPoint: mountTmpfs(t, "6m")}
	if _, err := k.Restore(ctx, into, RestoreOptions{Snapshot: small.Snapshot}); err != nil {
		t.Fatalf("restore of 1 GiB sparse + 3 MiB linked thrice into 6 MiB: %v", err)
	}
	// A snapshot of 9 MiB, forced over the 8 MiB disk holding the linked
	// file (3 MiB, three names): 5 MiB free + 3 MiB held is too little.
	for _, p := range []string{"sparse", "linked", "two", "three"} {
		os.Remove(filepath.Join(v.MountPoint, p))
	}
	write(t, v.MountPoint, "big", strings.Repeat("b", 9<<20))
	big, err := k.Save(ctx, v, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	full := ramdisk.Volume{Name: "Room", MountPoint: mountTmpfs(t, "8m")}
	write(t, full.MountPoint, "held", strings.Repeat("h", 3<<20))
	os.Link(filepath.Join(full.MountPoint, "held"), filepath.Join(full.MountPoint, "held2"))
	os.Link(filepath.Join(full.MountPoint, "held"), filepath.Join(full.MountPoint, "held3"))
	_, err = k.Restore(ctx, full, RestoreOptions{Snapshot: big.Snapshot, Force: true})
	if !errors.Is(err, ramdisk.ErrNoSpace) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("forced restore of 9 MiB over an 8 MiB disk: %v, want ErrNoSpace before anything changed", err)
	}
	for _, p := range []string{"held", "held2", "held3"} {
		if _, err := os.Stat(filepath.Join(full.MountPoint, p)); err != nil {
			t.Errorf("the refused restore removed %s: %v", p, err)
		}
	}
}

// TestRefusedXattrIsNotedNotFatal restores a file with an xattr the file
// system refuses (as macOS refuses com.apple.provenance): the restore goes
// on, the file comes back with its other xattrs, and the refusal is named.
func TestRefusedXattrIsNotedNotFatal(t *testing.T) {
	src, dst := t.TempDir(), mountTmpfs(t, "8m")
	write(t, src, "f", "data")
	entries, err := tree.Entries(src)
	if err != nil {
		t.Fatal(err)
	}
	entries[1].Xattr = map[string][]byte{"user.kept": []byte("k"), "system.rambar-refused": []byte("x")}
	notes, err := snapshot.BuildTree(context.Background(), entries, dst, snapshot.Build{From: src, Src: tree.SamePath})
	if err != nil {
		t.Fatalf("a refused xattr failed the restore: %v", err)
	}
	if len(notes) != 1 || notes[0].Path != "f" || !strings.Contains(notes[0].Why, "system.rambar-refused") {
		t.Errorf("notes %+v, want the refused xattr of f", notes)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "f")); err != nil || string(b) != "data" {
		t.Errorf("f: %q %v", b, err)
	}
	if v, ok, _ := tree.GetXattr(filepath.Join(dst, "f"), "user.kept"); !ok || string(v) != "k" {
		t.Errorf("user.kept = %q %v", v, ok)
	}
}
