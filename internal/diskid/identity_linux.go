//go:build linux

package diskid

import (
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// bootID is this boot's random id (/proc/sys/kernel/random/boot_id).
var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "unknown"
	}
	return strings.ReplaceAll(strings.TrimSpace(string(b)), ":", "")
})

// of: linux:BOOT:DEV:INO:fsid=FSID:fh=HANDLE:born=BTIME. The device number
// and a tmpfs root's inode come back for the next tmpfs, and its birth time
// is the kernel's coarse clock (a tmpfs made again within the same few
// milliseconds is born at the same nanosecond); what tells them apart is
// the file system's id (statfs f_fsid: random per tmpfs from Linux 6.7,
// the UUID mkfs gave an ext4) and the root's file handle (which holds its
// inode's generation, random per inode on tmpfs). Where a part cannot be
// read it is left out; where neither a birth time nor a handle can, the
// mount's unique id (Linux 6.8+) or its id stands in.
func of(dir string) (string, error) {
	var sx unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, dir, unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_SYNC_AS_STAT,
		unix.STATX_INO|unix.STATX_BTIME|unix.STATX_MNT_ID|unix.STATX_MNT_ID_UNIQUE, &sx)
	if err != nil {
		return "", fmt.Errorf("statx: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "linux:%s:%d.%d:%d", bootID(), sx.Dev_major, sx.Dev_minor, sx.Ino)
	if id := FSID(dir); id != "" {
		b.WriteString(":fsid=" + id)
	}
	handle := false
	if h, _, err := unix.NameToHandleAt(unix.AT_FDCWD, dir, 0); err == nil {
		fmt.Fprintf(&b, ":fh=%d.%s", h.Type(), hex.EncodeToString(h.Bytes()))
		handle = true
	}
	switch {
	case sx.Mask&unix.STATX_BTIME != 0:
		fmt.Fprintf(&b, ":born=%d.%09d", sx.Btime.Sec, sx.Btime.Nsec)
	case handle:
	case sx.Mask&unix.STATX_MNT_ID_UNIQUE != 0:
		fmt.Fprintf(&b, ":mount=u%d", sx.Mnt_id)
	case sx.Mask&unix.STATX_MNT_ID != 0:
		fmt.Fprintf(&b, ":mount=%d", sx.Mnt_id)
	default:
		return "", fmt.Errorf("no birth time, file handle or mount id")
	}
	return b.String(), nil
}

// FSID is the id statfs(2) gives the file system path is on, in hex; ""
// when it cannot be read or is zero. A tmpfs's is random at each mount
// (Linux 6.7 and later), an ext4's comes from its UUID: unlike a device
// number, it is not given again to the next file system.
func FSID(path string) string {
	var fs unix.Statfs_t
	if unix.Statfs(path, &fs) != nil || fs.Fsid.Val == [2]int32{} {
		return ""
	}
	return fmt.Sprintf("%08x%08x", uint32(fs.Fsid.Val[0]), uint32(fs.Fsid.Val[1]))
}
