//go:build darwin

package bench

import (
	"fmt"
	"os"
	"syscall"
)

// uncachedHow names the way sequential rows bypass the page cache here.
const uncachedHow = "F_NOCACHE"

// haveFullFsync is true: macOS has F_FULLFSYNC.
const haveFullFsync = true

// fullFsync asks the drive to put the data on permanent storage
// (fcntl F_FULLFSYNC), which plain fsync on macOS does not.
func fullFsync(f *os.File) error {
	syncCalls.Add(1)
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_FULLFSYNC, 0); e != 0 {
		return fmt.Errorf("fcntl F_FULLFSYNC: %w", e)
	}
	return nil
}

// openUncached opens path and, when direct is true, turns the cache off for
// it with F_NOCACHE. A file system that refuses gets a cached file and
// direct false.
func openUncached(path string, flag int, direct bool) (*os.File, bool, error) {
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil || !direct {
		return f, false, err
	}
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_NOCACHE, 1); e != 0 {
		return f, false, nil
	}
	return f, true, nil
}

// canLayOut is false: fio has no native preallocation on macOS, so its
// sequential write allocates as it writes, and RAMBar's does the same.
const canLayOut = false

// layOut does nothing on macOS (see canLayOut).
func layOut(*os.File, int64) (bool, error) { return false, nil }

// dropCache has no unprivileged equivalent on macOS (purge needs root).
func dropCache(string) {}

// fsType names the file system dir is on ("apfs", "hfs", "tmpfs").
func fsType(dir string) (string, error) {
	s, err := statfsDir(dir)
	if err != nil {
		return "", err
	}
	b := make([]byte, 0, len(s.Fstypename))
	for _, c := range s.Fstypename {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b), nil
}

// IsMemoryFS reports whether dir is on tmpfs. A ram:// disk image formatted
// APFS or HFS+ cannot be told from a disk by its file system; the engine's
// List names those.
func IsMemoryFS(dir string) bool {
	n, err := fsType(dir)
	return err == nil && n == "tmpfs"
}
