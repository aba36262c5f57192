//go:build linux

package keeper

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// volumeStamp names the file system mounted at dir so that a disk made
// again at the same place is told from the one before: the mount's unique
// ID (never reused while the machine runs; Linux 6.8 and later), else its
// device, mount ID and the birth time of its top folder. "" when dir
// cannot be read.
func volumeStamp(dir string) string {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, dir, unix.AT_SYMLINK_NOFOLLOW,
		unix.STATX_MNT_ID_UNIQUE|unix.STATX_MNT_ID|unix.STATX_BTIME|unix.STATX_INO, &st)
	if err != nil {
		return ""
	}
	if st.Mask&unix.STATX_MNT_ID_UNIQUE != 0 {
		return fmt.Sprintf("mnt-unique:%d", st.Mnt_id)
	}
	return fmt.Sprintf("dev:%d:%d mnt:%d born:%d.%09d", st.Dev_major, st.Dev_minor, st.Mnt_id, st.Btime.Sec, st.Btime.Nsec)
}
