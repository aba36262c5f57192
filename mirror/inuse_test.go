package mirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"rambar/tree"
	"slices"
	"strings"
	"testing"
	"time"

	"rambar/ramdisk"
)

// TestInUseRecordRoundTripAndRejectsDamage: the label of a snapshot taken
// while in use reads back as written, and a crafted or damaged one is
// refused whole.
func TestInUseRecordRoundTripAndRejectsDamage(t *testing.T) {
	id := "20261202T010203.000004Z"
	u := &InUse{Paths: []string{".", "Maildir/cur", "Maildir/cur/msg1", "Maildir/new", "db/x.sqlite-wal"}, Count: 7}
	b := encodeInUse(id, u)
	got, err := decodeInUse(id, b)
	if err != nil || got.Count != 7 || !slices.Equal(got.Paths, u.Paths) {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
	for name, bad := range map[string][]byte{
		"another snapshot's":  encodeInUse("20261202T010203.000005Z", u),
		"cut short":           b[:len(b)-2],
		"bytes after its end": append(slices.Clone(b), 0),
		"counting fewer":      encodeInUse(id, &InUse{Paths: u.Paths, Count: 2}),
		"out of order":        encodeInUse(id, &InUse{Paths: []string{"b", "a"}, Count: 2}),
		"twice":               encodeInUse(id, &InUse{Paths: []string{"a", "a"}, Count: 2}),
		"climbing out":        encodeInUse(id, &InUse{Paths: []string{"../etc"}, Count: 1}),
		"absolute":            encodeInUse(id, &InUse{Paths: []string{"/etc"}, Count: 1}),
		"a NUL":               encodeInUse(id, &InUse{Paths: []string{"a\x00b"}, Count: 1}),
		"too many":            encodeInUse(id, &InUse{Paths: make([]string, inUseMax+1), Count: inUseMax + 1}),
		"not one":             []byte("RAMBAR-INUSE-9\n"),
	} {
		if _, err := decodeInUse(id, bad); err == nil {
			t.Errorf("%s record accepted", name)
		}
	}
}

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
	label := s.path("snapshots", res.Snapshot+inUseExt)
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
	stray := s.path("snapshots", "20200101T000000.000000Z"+inUseExt)
	os.WriteFile(stray, encodeInUse("20200101T000000.000000Z", &InUse{Count: 1, Paths: []string{"x"}}), 0o600)
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
			s := &store{storeCore: &storeCore{dir: t.TempDir()}}
			id := newID(time.Now(), "")
			m := &manifest{header: header{ID: id, Created: time.Now()}, Entries: entries}
			err := s.writeSnapshot(streamOf(m))
			if !errors.Is(err, errBadManifest) {
				t.Fatalf("write = %v, want a damaged manifest refused", err)
			}
			if _, err := os.Stat(s.path("snapshots", id+".snap")); err == nil {
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

// TestIndexLinkTargetsRoundTripAndAreChecked: an index keeps each path's
// hard-link target and watched sum; a target that is not a clean path
// before its link makes the index bad.
func TestIndexLinkTargetsRoundTripAndAreChecked(t *testing.T) {
	w := newIndexWriter("20260101T000000.000001Z", "d", 3)
	w.add(".", tree.Ident{Ino: 1}, "", nil)
	w.add("a", tree.Ident{Ino: 2}, "", &contentSum{1, 2, 3})
	w.add("b", tree.Ident{Ino: 2}, "a", nil)
	x, err := decodeIndex(w.bytes())
	if err != nil {
		t.Fatal(err)
	}
	c := x.cursor()
	var links []string
	var watched []bool
	for _, _, ok := c.next(); ok; _, _, ok = c.next() {
		links, watched = append(links, string(c.link)), append(watched, c.watched)
	}
	if !slices.Equal(links, []string{"", "", "a"}) || !slices.Equal(watched, []bool{false, true, false}) {
		t.Errorf("links %q, watched %v", links, watched)
	}
	for name, link := range map[string]string{"after it": "c", "itself": "b", "climbing out": "../a", "the root": "."} {
		w := newIndexWriter("", "d", 3)
		w.add(".", tree.Ident{}, "", nil)
		w.add("a", tree.Ident{}, "", nil)
		w.add("b", tree.Ident{}, link, nil)
		if _, err := decodeIndex(w.bytes()); err == nil {
			t.Errorf("a link target %s accepted", name)
		}
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
	snap := f.k.store(st).path("snapshots", res.Snapshot+".snap")
	b, _ := os.ReadFile(snap)
	os.WriteFile(snap, b[:len(b)/2], 0o600)
	write(t, v.MountPoint, "b", "unsaved")
	_, err = f.k.Restore(context.Background(), v, RestoreOptions{Force: true})
	if !errors.Is(err, ErrNothingWritten) || !errors.Is(err, errBadManifest) {
		t.Fatalf("forced restore of a damaged snapshot = %v, want ErrNothingWritten", err)
	}
	if got, _ := os.ReadFile(filepath.Join(v.MountPoint, "b")); string(got) != "unsaved" {
		t.Errorf("the disk's unsaved file is %q after the refused restore", got)
	}
}
