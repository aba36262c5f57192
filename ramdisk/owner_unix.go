//go:build unix

package ramdisk

import (
	"os"
	"syscall"
)

// owner is the uid that owns the file st describes (-1 when unknown).
func owner(st os.FileInfo) int {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid)
	}
	return -1
}
