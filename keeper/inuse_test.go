package keeper

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"rambar/snapshot"
	"rambar/snapstore"

	"rambar/ramdisk"
)

// TestCraftedInUseRecordIsRefused: a damaged label makes listing and
// restoring that snapshot fail as a damaged manifest does, the restore
// before anything is written; a label of no snapshot is removed by the
// next save.
func TestCraftedInUseRecordIsRefused(t *testing.T) {
	f := newFixture(t)
	st, v := f.kept("Label")
	write(t, v.MountPoint, "a", "1")
	res, err := f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := f.k.store(st)
	label := s.Path("snapshots", res.Snapshot+snapstore.InUseExt)
	if err := os.WriteFile(label, []byte("RAMBAR-INUSE-1\n\x17../../../etc/passwd"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.k.Snapshots("Label"); err == nil {
		t.Error("snapshots listed with a damaged label")
	}
	to := ramdisk.Volume{Name: "Label", MountPoint: t.TempDir()}
	if _, err := f.k.Restore(f.ctx, to, RestoreOptions{}); !errors.Is(err, snapshot.ErrNothingWritten) {
		t.Errorf("restore with a damaged label = %v, want it refused before writing", err)
	}
	if ents, _ := os.ReadDir(to.MountPoint); len(ents) > 1 {
		t.Errorf("the refused restore wrote %d paths", len(ents))
	}
	os.Remove(label)
	stray := s.Path("snapshots", "20200101T000000.000000Z"+snapstore.InUseExt)
	os.WriteFile(stray, snapstore.EncodeInUse("20200101T000000.000000Z", &snapstore.InUse{Count: 1, Paths: []string{"x"}}), 0o600)
	write(t, v.MountPoint, "a", "2")
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stray); err == nil {
		t.Error("a label of no snapshot was left")
	}
}

// TestRestoreThatReadsNothingWritesNothing: a restore whose snapshot cannot
// be read fails with ErrNothingWritten, before clearing a disk it was
// forced over; one that fills the disk part way does not say so.
func TestRestoreThatReadsNothingWritesNothing(t *testing.T) {
	f := newFixture(t)
	st, v := f.kept("Bad")
	write(t, v.MountPoint, "a", "1")
	res, err := f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	snap := f.k.store(st).Path("snapshots", res.Snapshot+".snap")
	b, _ := os.ReadFile(snap)
	os.WriteFile(snap, b[:len(b)/2], 0o600)
	write(t, v.MountPoint, "b", "unsaved")
	_, err = f.k.Restore(context.Background(), v, RestoreOptions{Force: true})
	if !errors.Is(err, snapshot.ErrNothingWritten) || !errors.Is(err, snapstore.ErrBadManifest) {
		t.Fatalf("forced restore of a damaged snapshot = %v, want ErrNothingWritten", err)
	}
	if got, _ := os.ReadFile(filepath.Join(v.MountPoint, "b")); string(got) != "unsaved" {
		t.Errorf("the disk's unsaved file is %q after the refused restore", got)
	}
}
