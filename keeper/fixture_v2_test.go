package keeper

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"rambar/tree"
)

// TestStoreOfFormat2StillLoads restores both snapshots of a store written
// by the version 2 code (testdata/store-v2: a full manifest, then a delta
// whose two files are packed), then saves on top of it and restores that.
func TestStoreOfFormat2StillLoads(t *testing.T) { storeOfFormatLoads(t, "store-v2", false) }

// TestStoreOfFormat3StillLoads is the same for a store written by the
// version 3 code (testdata/store-v3: owners, a hard link, a sparse file).
func TestStoreOfFormat3StillLoads(t *testing.T) { storeOfFormatLoads(t, "store-v3", true) }

// TestStoreOfFormat4Loads is the same for a store of the current format
// (testdata/store-v4), so that later versions keep reading it.
func TestStoreOfFormat4Loads(t *testing.T) { storeOfFormatLoads(t, "store-v4", true) }

// storeOfFormatLoads restores both snapshots of the fixture store dir,
// then saves on top of it and restores that. A store that kept owners
// (owners) gives the restored disk the saved one; one that did not leaves
// the disk's.
func storeOfFormatLoads(t *testing.T, dir string, owners bool) {
	var want struct {
		Current   string        `json:"current"`
		Snapshots []string      `json:"snapshots"`
		Trees     []tree.Digest `json:"trees"`
	}
	b, err := os.ReadFile(filepath.Join(fixtures, dir, "want.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	disks := filepath.Join(f.k.Data, "disks")
	os.MkdirAll(disks, 0o700)
	if out, err := exec.Command("cp", "-r", filepath.Join(fixtures, dir, "Cur"), disks).CombinedOutput(); err != nil {
		t.Fatalf("copy fixture: %v %s", err, out)
	}
	snaps, err := f.k.Snapshots("Cur")
	if err != nil || len(snaps) != 2 || !snaps[1].Current || snaps[1].ID != want.Current {
		t.Fatalf("snapshots of %s: %+v %v", dir, snaps, err)
	}
	v := f.create("Cur")
	// The disk is a user's (as the Linux engine makes it for the user who
	// asked): a version 2 store did not record owners, so a restore as
	// root must not give the disk to root; later ones did (the fixtures
	// were saved as root), so it gets the saved owner.
	wantUID := uint32(1234)
	if owners {
		wantUID = 0
	}
	if err := os.Chown(v.MountPoint, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	for i, id := range want.Snapshots {
		if _, err := f.k.Restore(f.ctx, v, RestoreOptions{Snapshot: id, Force: true}); err != nil {
			t.Fatalf("restore %s snapshot %s: %v", dir, id, err)
		}
		sameTree(t, want.Trees[i], digest(t, v.MountPoint))
		if fi, err := os.Stat(v.MountPoint); err != nil || fi.Sys().(*syscall.Stat_t).Uid != wantUID {
			t.Errorf("restore of %s: the disk's owner is not %d: %v", dir, wantUID, err)
		}
	}
	write(t, v.MountPoint, "README", "after the upgrade\n")
	now := digest(t, v.MountPoint)
	res, err := f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil || res.CopiedFiles != 1 {
		t.Fatalf("save on %s: %+v %v", dir, res, err)
	}
	st, _ := f.k.State("Cur")
	out := t.TempDir()
	if _, err := f.k.store(st).Restore(f.ctx, "", out, "", nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, now, digest(t, out))
}

// fixtures holds the stores older RAMBars wrote, one per format: they are
// package snapstore's (which reads them on its own), restored here
// through the Keeper.
var fixtures = filepath.Join("..", "snapstore", "testdata")
