//go:build linux

package tree

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// FileFlush pushes one written file toward the disk: nothing on Linux,
// where commitFlush's one syncfs covers every file.
func FileFlush(int) error { return nil }

// CommitFlush makes everything written on dirfd's file system durable:
// one syncfs before a write-back's first rename (the new files' data),
// one before its record (the renames).
func CommitFlush(dirfd int) error {
	if err := unix.Syncfs(dirfd); err != nil {
		return fmt.Errorf("syncfs: %w", err)
	}
	return nil
}

// MkfifoIn makes the FIFO name in the folder dirfd (mode 0600 until its
// metadata is set).
func MkfifoIn(dirfd int, name string) error { return unix.Mkfifoat(dirfd, name, 0o600) }

// PushFile starts a written file's data (a pack) on its way to the disk
// and waits for it (fdatasync), so a full save's packs are written out
// while later ones are still being filled; the syncfs before the commit
// (flushTree) then has little left to do and covers the metadata.
func PushFile(fd int) error { return RetryEINTR(func() error { return unix.Fdatasync(fd) }) }

// ReadAhead tells the kernel that n bytes at off of fd are about to be
// read in order (POSIX_FADV_SEQUENTIAL doubles the readahead window;
// WILLNEED starts reading now). Advice only: errors are ignored.
func ReadAhead(fd int, off, n int64) {
	unix.Fadvise(fd, off, n, unix.FADV_SEQUENTIAL)
	unix.Fadvise(fd, off, n, unix.FADV_WILLNEED)
}
