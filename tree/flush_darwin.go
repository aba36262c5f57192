//go:build darwin

package tree

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// PushFile sends a written file's data to the drive with a barrier
// (F_BARRIERFSYNC: later writes are not reordered before it), without
// flushing the drive's cache: a full flush (F_FULLFSYNC) costs tens of
// milliseconds on Apple SSDs, so it is done once, at the commit
// (fullSync), never per file. Where the barrier is refused (HFS+, an
// older system, a network volume) a plain fsync does the same job.
func PushFile(fd int) error {
	err := RetryEINTR(func() error { _, err := unix.FcntlInt(uintptr(fd), unix.F_BARRIERFSYNC, 0); return err })
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.EIO) || errors.Is(err, unix.ENOSPC) {
		return err
	}
	return RetryEINTR(func() error { return unix.Fsync(fd) })
}

// fullSync flushes the drive's cache through fd (F_FULLFSYNC): everything
// pushed before (pushFile) is on stable storage when it returns. A volume
// that refuses it gets an fsync.
func fullSync(fd int) error {
	err := RetryEINTR(func() error { _, err := unix.FcntlInt(uintptr(fd), unix.F_FULLFSYNC, 0); return err })
	if err != nil && !errors.Is(err, unix.EIO) && !errors.Is(err, unix.ENOSPC) {
		err = RetryEINTR(func() error { return unix.Fsync(fd) })
	}
	if err != nil {
		return fmt.Errorf("fullfsync: %w", err)
	}
	return nil
}

// ReadAhead asks macOS to read ahead on fd (F_RDAHEAD, on by default for
// sequential reads; set in case a volume turned it off). Advice only.
func ReadAhead(fd int, _, _ int64) { unix.FcntlInt(uintptr(fd), unix.F_RDAHEAD, 1) }

// FileFlush pushes one file a write-back wrote (pushFile): F_FULLFSYNC
// costs about 4 ms a file, so it is done by commitFlush, never per file.
func FileFlush(fd int) error {
	if err := PushFile(fd); err != nil {
		return fmt.Errorf("F_BARRIERFSYNC: %w", err)
	}
	return nil
}

// CommitFlush is one of a write-back's two F_FULLFSYNCs (before the
// first rename, and before its record): it flushes the drive's cache, and
// with it every file fileFlush pushed and every rename made.
func CommitFlush(dirfd int) error { return fullSync(dirfd) }

// MkfifoIn is not offered here: x/sys has no mkfifoat for macOS, and a
// FIFO made by path could be redirected. The write-back names it instead.
func MkfifoIn(int, string) error { return errors.ErrUnsupported }
