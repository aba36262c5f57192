//go:build unix

package ramdisk

import (
	"os"
	"path/filepath"
	"syscall"
)

// IsMountPoint reports whether dir is the root of a mounted file system: its
// device differs from its parent's. Names under a mount root that are mount
// points are taken; leftover empty folders are not.
func IsMountPoint(dir string) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return false
	}
	pst, err := os.Lstat(filepath.Dir(dir))
	if err != nil {
		return false
	}
	a, ok1 := st.Sys().(*syscall.Stat_t)
	b, ok2 := pst.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && a.Dev != b.Dev
}

// TakenNames lists the names under a mount root that are mount points: a
// RAM disk, or anything else mounted there (a USB stick at /Volumes/RAM Disk
// blocks that name too). Leftover empty folders are not taken.
func TakenNames(root string) []string {
	if root == "" {
		return nil
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if IsMountPoint(filepath.Join(root, e.Name())) {
			out = append(out, e.Name())
		}
	}
	return out
}
