//go:build linux

package bench

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// uncachedHow names the way sequential rows bypass the page cache here.
const uncachedHow = "O_DIRECT"

// haveFullFsync is false: F_FULLFSYNC is a macOS fcntl.
const haveFullFsync = false

// fullFsync is not available on Linux.
func fullFsync(*os.File) error { return errors.New("F_FULLFSYNC is macOS only") }

// openUncached opens path with O_DIRECT when direct is true. A file system
// that refuses O_DIRECT (EINVAL) gets a cached file instead and direct false.
func openUncached(path string, flag int, direct bool) (*os.File, bool, error) {
	if direct {
		f, err := os.OpenFile(path, flag|syscall.O_DIRECT, 0o644)
		if err == nil {
			return f, true, nil
		}
		if !errors.Is(err, syscall.EINVAL) {
			return nil, false, err
		}
	}
	f, err := os.OpenFile(path, flag, 0o644)
	return f, false, err
}

// canLayOut is true: Linux files are laid out with fallocate, as fio's
// default (fallocate=native) does before its clock starts.
const canLayOut = true

// layOut reserves size bytes for f from offset 0 (fallocate mode 0, which
// also sets the length), the way fio lays out a file before it times the
// writes into it: on tmpfs that allocates the pages, so the timed writes
// then fill memory the file already holds. A file system that cannot
// preallocate (EOPNOTSUPP) gives false and no error, and the writes then
// allocate as they go, as fio's do there.
func layOut(f *os.File, size int64) (bool, error) {
	err := syscall.Fallocate(int(f.Fd()), 0, 0, size)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENOSYS):
		return false, nil
	}
	return false, fmt.Errorf("fallocate %s: %w", f.Name(), err)
}

// dropCache asks the kernel to forget path's cached pages, so a cached read
// at least starts cold where the file system allows it (tmpfs cannot).
func dropCache(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	const posixFadvDontneed = 4
	syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, posixFadvDontneed, 0, 0)
}

// fsMagic maps statfs f_type to a name (linux/magic.h).
var fsMagic = map[int64]string{
	0x01021994: "tmpfs",
	0xEF53:     "ext4",
	0x58465342: "xfs",
	0x9123683E: "btrfs",
	0x794C7630: "overlayfs",
	0x2FC12FC1: "zfs",
	0x6969:     "nfs",
	0x65735546: "fuse",
	0x858458F6: "ramfs",
	0xF2F52010: "f2fs",
	0x4d44:     "vfat",
	0x5346544e: "ntfs",
}

// fsType names the file system dir is on.
func fsType(dir string) (string, error) {
	s, err := statfsDir(dir)
	if err != nil {
		return "", err
	}
	if n, ok := fsMagic[int64(s.Type)]; ok {
		return n, nil
	}
	return fmt.Sprintf("fs 0x%x", s.Type), nil
}

// IsMemoryFS reports whether dir is on a file system that lives in memory
// (tmpfs, ramfs).
func IsMemoryFS(dir string) bool {
	n, err := fsType(dir)
	return err == nil && (n == "tmpfs" || n == "ramfs")
}
