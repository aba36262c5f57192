//go:build linux

package diskspace

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOfRealTmpfs measures a real 8 MiB tmpfs, empty and with a 1 MiB file:
// the size is the mount's, and the file shows in used, free and files.
func TestOfRealTmpfs(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("rambar-diskspace-test", dir, "tmpfs", 0, "size=8m"); err != nil {
		t.Fatalf("mount tmpfs (the tests run as root): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	empty, err := Of(dir)
	if err != nil {
		t.Fatal(err)
	}
	if empty.Total != 8<<20 || empty.Free != empty.Total || empty.Used != 0 {
		t.Errorf("empty 8 MiB tmpfs: %+v", empty)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	full, err := Of(dir)
	if err != nil {
		t.Fatal(err)
	}
	if full.Used != 1<<20 || full.Free != 7<<20 || full.Files != empty.Files+1 {
		t.Errorf("with a 1 MiB file: %+v (empty: %+v)", full, empty)
	}
	if free, err := Free(dir); err != nil || free != full.Free {
		t.Errorf("Free = %d, %v; want %d", free, err, full.Free)
	}
	if _, err := Of(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("a missing path measured")
	}
}
