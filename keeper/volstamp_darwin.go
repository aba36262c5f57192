//go:build darwin

package keeper

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// volumeStamp names the file system mounted at dir so that a disk made
// again at the same place is told from the one before: its device and the
// birth time of its top folder (set when the volume is erased). "" when
// dir cannot be read.
func volumeStamp(dir string) string {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return ""
	}
	return fmt.Sprintf("dev:%d born:%d.%09d", st.Dev, st.Btim.Sec, st.Btim.Nsec)
}
