//go:build linux || darwin

package diskspace

import (
	"fmt"
	"syscall"
)

// Of measures the file system that holds path.
func Of(path string) (Stat, error) {
	var s syscall.Statfs_t
	if err := syscall.Statfs(path, &s); err != nil {
		return Stat{}, fmt.Errorf("statfs %s: %w", path, err)
	}
	bs := int64(s.Bsize)
	return Stat{
		Total: int64(s.Blocks) * bs,
		Used:  int64(s.Blocks-s.Bfree) * bs,
		Free:  int64(s.Bavail) * bs,
		Files: int64(s.Files - s.Ffree),
	}, nil
}
