package tree

import (
	"time"

	"golang.org/x/sys/unix"
)

// A file a program writes without pause is copied as it is and checked
// (snapshot/savehold.go): its identity before and after the copy, with two
// guarantees from the kernel that make "the same identity" mean "the same
// bytes":
//
//   - WriteBarrier: a write(2) updates the file's times as it begins and
//     lands its bytes after, holding the inode's lock throughout. tmpfs
//     and ext4 take that lock for lseek(SEEK_DATA) too, so the barrier
//     returns only once any write in progress has landed (measured: it
//     waits out a 1 GiB write on both).
//   - ChangeClock: a change sets the file's ctime from the kernel's coarse
//     clock, which ticks every few milliseconds. Two writes in one tick
//     may leave the same ctime, so a copy counts only when the file's
//     ctime is older than the clock read before its identity was: any
//     write after that read sets a later ctime.

// HasWriteBarrier reports whether WriteBarrier waits for writes in
// progress here.
const HasWriteBarrier = true

// WriteBarrier returns once no write(2) to the file open as fd is in
// progress: one begun before it has landed.
func WriteBarrier(fd int) {
	unix.Seek(fd, 0, unix.SEEK_DATA) // ENXIO for an empty file: the lock was taken anyway
}

// ChangeClock is the clock file times are set from, now (ns since the
// epoch): CLOCK_REALTIME_COARSE.
func ChangeClock() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts) != nil {
		return time.Now().UnixNano()
	}
	return TsNano(ts)
}
