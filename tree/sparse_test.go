package tree

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"rambar/internal/testtree"

	"golang.org/x/sys/unix"
)

// TestSaveDataOfASuspectedSparseFileWithoutHoles: a file the scan took for
// sparse (fewer blocks than bytes, as with inline data or compression)
// that has no holes is copied whole, from its start.
func TestSaveDataOfASuspectedSparseFileWithoutHoles(t *testing.T) {
	dir := t.TempDir()
	want := bytes.Repeat([]byte("dense"), 1000)
	testtree.Write(t, dir, "f", string(want))
	in, err := unix.Open(filepath.Join(dir, "f"), unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(in)
	out, err := os.Create(filepath.Join(dir, "obj"))
	if err != nil {
		t.Fatal(err)
	}
	e := &Entry{Kind: KindFile, Sparse: true}
	n, err := SaveData(int(out.Fd()), in, e, false)
	out.Close()
	got, _ := os.ReadFile(filepath.Join(dir, "obj"))
	if err != nil || n != int64(len(want)) || e.Size != int64(len(want)) || e.Extents != nil || !bytes.Equal(got, want) {
		t.Errorf("saveData = %d, %v; size %d, extents %v; %d bytes stored", n, err, e.Size, e.Extents, len(got))
	}
}
