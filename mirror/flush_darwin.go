//go:build darwin

package mirror

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// fileFlush pushes one written file to the drive without waiting for the
// drive's cache (F_BARRIERFSYNC orders it before later writes; fsync where
// the file system lacks it). F_FULLFSYNC costs about 4 ms a file, so it is
// done once per write-back, by commitFlush, never per file.
func fileFlush(fd int) error {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_BARRIERFSYNC, 0); err == nil {
		return nil
	} else if !errors.Is(err, unix.ENOTSUP) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("F_BARRIERFSYNC: %w", err)
	}
	if err := unix.Fsync(fd); err != nil {
		return fmt.Errorf("fsync: %w", err)
	}
	return nil
}

// commitFlush is the write-back's one F_FULLFSYNC, before the swap: it
// flushes the drive's cache, and with it every file fileFlush pushed.
func commitFlush(dirfd int) error {
	if _, err := unix.FcntlInt(uintptr(dirfd), unix.F_FULLFSYNC, 0); err != nil {
		if err := unix.Fsync(dirfd); err != nil {
			return fmt.Errorf("fsync: %w", err)
		}
	}
	return nil
}

// exchangeAt swaps two names atomically (renameatx_np RENAME_SWAP).
func exchangeAt(fromfd int, from string, tofd int, to string) error {
	if err := unix.RenameatxNp(fromfd, from, tofd, to, unix.RENAME_SWAP); err != nil {
		return fmt.Errorf("renameatx_np swap %s: %w", to, err)
	}
	return nil
}

// mkfifoIn is not offered here: x/sys has no mkfifoat for macOS, and a
// FIFO made by path could be redirected. The write-back names it instead.
func mkfifoIn(int, string) error { return errors.ErrUnsupported }
