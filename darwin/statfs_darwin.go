//go:build darwin

package darwin

import (
	"fmt"
	"syscall"
)

func systemStatfs(path string) (FSStat, error) {
	var s syscall.Statfs_t
	if err := syscall.Statfs(path, &s); err != nil {
		return FSStat{}, fmt.Errorf("statfs %s: %w", path, err)
	}
	bs := int64(s.Bsize)
	return FSStat{Total: int64(s.Blocks) * bs, Free: int64(s.Bavail) * bs, Files: int64(s.Files - s.Ffree)}, nil
}
