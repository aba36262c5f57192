package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
