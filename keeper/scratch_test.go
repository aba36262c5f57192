package keeper

import (
	"os"
	"path/filepath"
	"testing"

	"rambar/ramdisk"
)

// RAMBar's scratch folders (the benchmark's files) are not contents: made,
// filled and removed on a saved disk, they leave it saved, and a save made
// while one exists does not hold it. Anything else made at the top still
// makes the disk unsaved.
func TestScratchFoldersAreNotContents(t *testing.T) {
	f := newFixture(t)
	f.k.Setup("Kept", Options{Mode: ramdisk.Keep, Snapshots: 3})
	v := f.create("Kept")
	f.k.Load(f.ctx, v, nil)
	write(t, v.MountPoint, "notes.txt", "mine")
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	dirty := func(step string, want bool) {
		t.Helper()
		if got, err := f.k.Dirty(v); err != nil || got != want {
			t.Errorf("%s: Dirty = %v, %v; want %v", step, got, err, want)
		}
	}
	scratch := filepath.Join(v.MountPoint, ramdisk.ScratchPrefix+"bench-123")
	write(t, scratch, "big.bin", "benchmark data")
	dirty("scratch folder being written", false)
	res, err := f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil || !res.Unchanged {
		t.Errorf("save with a scratch folder: %+v, %v; want unchanged", res, err)
	}
	if err := os.RemoveAll(scratch); err != nil {
		t.Fatal(err)
	}
	dirty("scratch folder removed", false)
	write(t, v.MountPoint, ".rambar-other", "x")
	dirty("another file at the top", true)
}
