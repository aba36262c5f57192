//go:build !darwin

package darwin

import (
	"fmt"

	"rambar/ramdisk"
)

// systemStatfs is macOS-only; tests pass WithStatfs.
func systemStatfs(path string) (FSStat, error) {
	return FSStat{}, fmt.Errorf("statfs %s: %w", path, ramdisk.ErrUnsupported)
}
