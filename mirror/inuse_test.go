package mirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"rambar/snapstore"
	"rambar/tree"
	"strings"
	"testing"
	"time"

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
	if _, err := f.k.Restore(f.ctx, to, RestoreOptions{}); !errors.Is(err, ErrNothingWritten) {
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

// TestManifestIsCheckedAsItIsWritten: a save whose manifest would not
// read back (a hard link to a path that is no file before it, a path
// outside any folder, paths out of order) fails as it writes it, and
// leaves no manifest and no new current snapshot.
func TestManifestIsCheckedAsItIsWritten(t *testing.T) {
	root := tree.Entry{Path: ".", Kind: tree.KindDir, Mode: 0o755}
	dir := tree.Entry{Path: "a", Kind: tree.KindDir, Mode: 0o755}
	file := tree.Entry{Path: "a/x", Kind: tree.KindFile, Mode: 0o644, Size: 1, Obj: tree.ObjName{Save: "20261202T000000.000000Z", Num: 1}}
	for name, entries := range map[string][]tree.Entry{
		"a link to a path gone":    {root, dir, file, {Path: "z", Kind: tree.KindFile, Mode: 0o644, HardLink: "m/x"}},
		"a link to a later file":   {root, {Path: "0", Kind: tree.KindFile, Mode: 0o644, HardLink: "a/x"}, dir, file},
		"a path in no folder":      {root, {Path: "b/x", Kind: tree.KindFile, Mode: 0o644, Obj: file.Obj}},
		"paths out of order":       {root, dir, {Path: "0", Kind: tree.KindDir, Mode: 0o755}},
		"no root":                  {dir},
		"a folder with an object":  {root, {Path: "a", Kind: tree.KindDir, Obj: file.Obj}},
		"a symlink with no target": {root, {Path: "l", Kind: tree.KindSymlink}},
	} {
		t.Run(name, func(t *testing.T) {
			s := &store{Store: &snapstore.Store{Dir: t.TempDir()}}
			id := snapstore.NewID(time.Now(), "")
			m := &snapstore.Manifest{Header: snapstore.Header{ID: id, Created: time.Now()}, Entries: entries}
			err := s.writeSnapshot(streamOf(m))
			if !errors.Is(err, snapstore.ErrBadManifest) {
				t.Fatalf("write = %v, want a damaged manifest refused", err)
			}
			if _, err := os.Stat(s.Path("snapshots", id+".snap")); err == nil {
				t.Error("the refused manifest was left")
			}
		})
	}
}

// TestMappedFilesAreFoundInCapturedOutput: /proc/PID/maps text (captured
// on Linux 6.18 from a process mapping, on a tmpfs 00:28, an LMDB-like
// file and a SQLite -shm shared and writable, one file shared read-only
// and one private, beside its libraries) and lsof -F fi output (written
// from lsof's field format: no macOS output was captured) give the inodes
// of the files mapped: for maps, shared and writable on the device asked.
func TestMappedFilesAreFoundInCapturedOutput(t *testing.T) {
	maps, err := os.ReadFile(filepath.Join("testdata", "mapped", "proc-maps.txt"))
	if err != nil {
		t.Fatal(err)
	}
	found := map[uint64]bool{}
	mapsShared(maps, 0, 0x28, found)
	if !equalSet(found, 3, 4) {
		t.Errorf("maps: %v, want inodes 3 and 4 (shared and writable on 00:28)", found)
	}
	other := map[uint64]bool{}
	if mapsShared(maps, 0, 0x29, other); len(other) != 0 {
		t.Errorf("maps on another device: %v", other)
	}
	lsof, err := os.ReadFile(filepath.Join("testdata", "mapped", "lsof-F-fi.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := lsofMapped(lsof); !equalSet(got, 22, 31) {
		t.Errorf("lsof: %v, want inodes 22 and 31 (mapped: mem, txt)", got)
	}
	if got := lsofMapped([]byte(strings.Repeat("i", 3))); len(got) != 0 {
		t.Errorf("lsof garbage: %v", got)
	}
}

func equalSet(m map[uint64]bool, want ...uint64) bool {
	if len(m) != len(want) {
		return false
	}
	for _, w := range want {
		if !m[w] {
			return false
		}
	}
	return true
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
	if !errors.Is(err, ErrNothingWritten) || !errors.Is(err, snapstore.ErrBadManifest) {
		t.Fatalf("forced restore of a damaged snapshot = %v, want ErrNothingWritten", err)
	}
	if got, _ := os.ReadFile(filepath.Join(v.MountPoint, "b")); string(got) != "unsaved" {
		t.Errorf("the disk's unsaved file is %q after the refused restore", got)
	}
}
