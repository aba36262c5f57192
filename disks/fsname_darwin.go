//go:build darwin

package disks

import "golang.org/x/sys/unix"

// fsName names the file system dir is on, for a warning.
func fsName(dir string) string {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return "a file system"
	}
	n := unix.ByteSliceToString(st.Fstypename[:])
	switch n {
	case "exfat":
		return "exFAT"
	case "msdos":
		return "FAT"
	case "":
		return "a file system"
	}
	return n
}
