//go:build linux || darwin

package bench

import (
	"fmt"
	"os"
	"syscall"
)

// statfsDir returns the statfs of the file system a folder is on.
func statfsDir(dir string) (syscall.Statfs_t, error) {
	var s syscall.Statfs_t
	st, err := os.Stat(dir)
	if err != nil {
		return s, err
	}
	if !st.IsDir() {
		return s, fmt.Errorf("not a folder")
	}
	if err := syscall.Statfs(dir, &s); err != nil {
		return s, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return s, nil
}
