package snapshot

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rambar/tree"
)

// TestSettledBy: a file's identity read after the change clock vouches for
// its copy only once the clock is past its ctime and the quiet asked (a
// second past, for a ctime of whole seconds).
func TestSettledBy(t *testing.T) {
	const s = int64(time.Second)
	ms := int64(time.Millisecond)
	for _, c := range []struct {
		name  string
		ctime int64
		clock int64
		quiet time.Duration
		ok    bool
		wait  time.Duration
	}{
		{"older than the clock", 100*s + 5*ms, 100*s + 9*ms, 0, true, 0},
		{"in the clock's tick", 100*s + 9*ms, 100*s + 9*ms, 0, false, time.Nanosecond},
		{"whole seconds: a second older", 100 * s, 101 * s, 0, true, 0},
		{"whole seconds: the same second", 100 * s, 100*s + 500*ms, 0, false, 50 * time.Millisecond},
		{"ahead of the clock", 102*s + ms, 100 * s, 0, false, 50 * time.Millisecond},
		{"not quiet for a tick yet", 100*s + 1*ms, 100*s + 3*ms, 4 * time.Millisecond, false, 2 * time.Millisecond},
		{"quiet for a tick", 100*s + 1*ms, 100*s + 5*ms, 4 * time.Millisecond, true, 0},
		{"a large file without a barrier waits longer", 100*s + 1*ms, 100*s + 6*ms, quietFor(1 << 30), false, quietFor(1<<30) - 5*time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			ok, wait := settledBy(tree.Ident{CTime: c.ctime}, c.clock, c.quiet)
			if ok != c.ok || !ok && min(c.wait, 50*time.Millisecond) != wait {
				t.Errorf("settledBy(ctime %d, clock %d, quiet %v) = %v, %v; want %v, %v", c.ctime, c.clock, c.quiet, ok, wait, c.ok, c.wait)
			}
		})
	}
}

// TestWALIndexesAreNotWatched: a file mapped shared and writable named
// DB-shm beside its database, with both copies of a wal-index header, is
// not compared by content; the same name with other bytes, or with no
// database beside it, still is.
func TestWALIndexesAreNotWatched(t *testing.T) {
	root := t.TempDir()
	header := make([]byte, 136)
	binary.NativeEndian.PutUint32(header[0:], walIndexVersion)
	binary.NativeEndian.PutUint32(header[48:], walIndexVersion)
	files := map[string][]byte{
		"app/data.db": []byte("SQLite format 3\x00"), "app/data.db-shm": header,
		"app/other.db": []byte("x"), "app/other.db-shm": make([]byte, 136),
		"lone.db-shm": header, "app/mapped.bin": header,
	}
	for rel, b := range files {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	items, err := tree.Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	mapped, ino := map[uint64]bool{}, map[string]uint64{}
	for _, it := range items {
		if _, ok := files[it.Rel]; ok {
			mapped[it.Id.Ino], ino[it.Rel] = true, it.Id.Ino
		}
	}
	dropWALIndexes(root, items, mapped)
	for rel := range files {
		if want := rel != "app/data.db-shm"; mapped[ino[rel]] != want {
			t.Errorf("%s watched: %v, want %v", rel, mapped[ino[rel]], want)
		}
	}
}

// TestFollowRestDropsTheSpareScan: a followed disk at rest keeps only the
// scan its index describes; the room kept for the next rescan is dropped.
func TestFollowRestDropsTheSpareScan(t *testing.T) {
	f := NewFollow(nil)
	f.spare = make([]tree.Scanned, 4)
	f.Rest()
	if s := f.takeSpare(); s != nil {
		t.Fatalf("after Rest the follow still keeps %d scanned paths for a rescan", len(s))
	}
}
