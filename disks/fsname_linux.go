//go:build linux

package disks

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// fsName names the file system dir is on, for a warning: by its magic
// number, or, for one through FUSE, by its type and source in the mount
// table.
func fsName(dir string) string {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return "a file system"
	}
	switch uint32(st.Type) {
	case 0x2011BAB0:
		return "exFAT"
	case unix.MSDOS_SUPER_MAGIC:
		return "FAT"
	case 0x5346544e, 0x7366746e: // ntfs, ntfs3
		return "NTFS"
	case unix.SMB_SUPER_MAGIC, unix.SMB2_SUPER_MAGIC, 0xFF534D42:
		return "a network share"
	case unix.FUSE_SUPER_MAGIC:
		if t, src := mountOf(dir); t != "" {
			return fmt.Sprintf("a FUSE file system (%s from %s)", t, src)
		}
		return "a FUSE file system"
	}
	return "a file system"
}

// mountOf is the type and source of the mount dir is on, from
// /proc/self/mountinfo ("" when not found).
func mountOf(dir string) (fstype, source string) {
	var st unix.Stat_t
	if unix.Stat(dir, &st) != nil {
		return "", ""
	}
	dev := fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || fields[2] != dev {
			continue
		}
		for i, w := range fields {
			if w == "-" && i+2 < len(fields) {
				fstype, source = fields[i+1], fields[i+2]
			}
		}
	}
	return fstype, source
}
