//go:build linux

package mirror

import "golang.org/x/sys/unix"

// pushFile starts a written file's data (a pack) on its way to the disk
// and waits for it (fdatasync), so a full save's packs are written out
// while later ones are still being filled; the syncfs before the commit
// (flushTree) then has little left to do and covers the metadata.
func pushFile(fd int) error { return retryEINTR(func() error { return unix.Fdatasync(fd) }) }

// readAhead tells the kernel that n bytes at off of fd are about to be
// read in order (POSIX_FADV_SEQUENTIAL doubles the readahead window;
// WILLNEED starts reading now). Advice only: errors are ignored.
func readAhead(fd int, off, n int64) {
	unix.Fadvise(fd, off, n, unix.FADV_SEQUENTIAL)
	unix.Fadvise(fd, off, n, unix.FADV_WILLNEED)
}
