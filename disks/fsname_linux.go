//go:build linux

package disks

import (
	"fmt"
	"os"
	"slices"
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
// /proc/self/mountinfo ("" when not found): on the last line of dir's
// device, the two fields after the "-" that ends the optional fields.
func mountOf(dir string) (fstype, source string) {
	var st unix.Stat_t
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil || unix.Stat(dir, &st) != nil {
		return "", ""
	}
	dev := fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if sep := slices.Index(f, "-"); len(f) > 2 && f[2] == dev && sep >= 0 && sep+2 < len(f) {
			fstype, source = f[sep+1], f[sep+2]
		}
	}
	return fstype, source
}
