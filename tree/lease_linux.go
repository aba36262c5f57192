package tree

import (
	"errors"

	"golang.org/x/sys/unix"
)

// ReadLease takes a read lease on the file open read-only as fd. It is
// granted only while no process has the file open for writing (a writable
// shared mapping counts), and then until fd is closed no process can open
// it for writing (its open waits: the kernel signals the lease holder, and
// Go's runtime ignores the signal). writer reports that it was refused
// because a process has the file open for writing; neither is set when
// leases are not allowed here (another user's file, without root).
func ReadLease(fd int) (granted, writer bool) {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_RDLCK)
	return err == nil, errors.Is(err, unix.EAGAIN)
}
