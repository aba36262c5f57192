//go:build linux

package tree

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"rambar/internal/testtree"
)

// TestWalkBeneathRefusesSymlinks: the component-by-component open used
// where openat2 is missing follows no symlink on the way or at the end.
func TestWalkBeneathRefusesSymlinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	testtree.Write(t, root, "d/f", "x")
	testtree.Write(t, outside, "f", "secret")
	os.Symlink(outside, filepath.Join(root, "link"))
	os.Symlink(filepath.Join(outside, "f"), filepath.Join(root, "d/lf"))
	tree, err := OpenTree(root)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if fd, err := walkBeneath(tree.Fd, "d/f", os.O_RDONLY, 0); err != nil {
		t.Errorf("d/f: %v", err)
	} else {
		syscall.Close(fd)
	}
	for _, rel := range []string{"link/f", "d/lf"} {
		if fd, err := walkBeneath(tree.Fd, rel, os.O_RDONLY, 0); err == nil {
			syscall.Close(fd)
			t.Errorf("%s: opened through a symlink", rel)
		}
	}
}
