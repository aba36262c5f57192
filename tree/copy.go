package tree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// copyInto copies src's bytes (opened as in) to out: a range of a pack,
// or the whole file, letting the kernel move the data (kernelCopy; sameFS:
// in and out share a file system, so copy_file_range may be tried). Both
// are bare descriptors: os.File would try (and fail) to register each
// regular file with the poller, several system calls per file that
// dominate copying many small files.
func copyInto(out, in int, src ObjRef, sameFS bool) (int64, error) {
	if src.Packed {
		return src.Size, RangeCopy(out, in, src.Off, src.Size)
	}
	return kernelCopy(out, in, sameFS)
}

// Unpack copies a packed or sparse file e out of its object (opened as in)
// into a new temporary file in dir, holes and all, and returns its path.
func Unpack(in int, src ObjRef, e Entry, dir string) (string, error) {
	f, err := os.CreateTemp(dir, ".unpack.tmp-*")
	if err != nil {
		return "", NoSpace(fmt.Errorf("unpack %s: %w", src.Rel, err))
	}
	_, err = RestoreData(int(f.Fd()), in, src, e, false)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", NoSpace(fmt.Errorf("unpack %s: %w", src.Rel, err))
	}
	return f.Name(), nil
}

// RangeCopy copies size bytes at off of in to out (at its position).
func RangeCopy(out, in int, off, size int64) error {
	if size == 0 {
		return nil
	}
	if err := kernelRangeCopy(out, in, off, size); err == nil || !errors.Is(err, unix.EINVAL) {
		return err
	}
	bp := CopyBufs.Get().(*[]byte)
	defer CopyBufs.Put(bp)
	buf := *bp
	for size > 0 {
		n, err := unix.Pread(in, buf[:min(int64(len(buf)), size)], off)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("pack ends %d bytes early: %w", size, ErrDamaged)
		}
		if err := WriteAll(out, buf[:n]); err != nil {
			return err
		}
		off += int64(n)
		size -= int64(n)
	}
	return nil
}

// PreadFull reads from fd at off until buf is full or the file ends, and
// returns the bytes read.
func PreadFull(fd int, buf []byte, off int64) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := unix.Pread(fd, buf[n:], off+int64(n))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}

// WriteAll writes all of p to fd, retrying interrupted writes.
func WriteAll(fd int, p []byte) error {
	for len(p) > 0 {
		m, err := unix.Write(fd, p)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		p = p[m:]
	}
	return nil
}

// CreateMask is the process's umask, read once: a file created with a
// mode it clears no bit of needs no chmod afterwards.
var CreateMask = func() uint32 {
	m := unix.Umask(0)
	unix.Umask(m)
	return uint32(m)
}()

// openNoAtimeAt opens path relative to the folder dir, reading it without
// moving its access time where the system allows that (O_NOATIME: Linux,
// the owner or root).
func openNoAtimeAt(dir int, path string, flags int) (int, error) {
	if ONoAtime != 0 {
		fd, err := OpenAtRetry(dir, path, flags|ONoAtime, 0)
		if !errors.Is(err, unix.EPERM) {
			return fd, err
		}
	}
	return OpenAtRetry(dir, path, flags, 0)
}

// OpenRetry is open(2), retried when interrupted by a signal.
func OpenRetry(path string, flags int, mode uint32) (int, error) {
	return OpenAtRetry(unix.AT_FDCWD, path, flags, mode)
}

// OpenAtRetry is openat(2), retried when interrupted by a signal.
func OpenAtRetry(dir int, path string, flags int, mode uint32) (int, error) {
	for {
		fd, err := unix.Openat(dir, path, flags, mode)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// RetryEINTR runs f until it is not interrupted by a signal.
func RetryEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// CopyBufs are readWriteCopy's buffers.
var CopyBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// readWriteCopy copies in to out through a buffer, until end of file.
func readWriteCopy(out, in int) (int64, error) {
	bp := CopyBufs.Get().(*[]byte)
	defer CopyBufs.Put(bp)
	buf := *bp
	var done int64
	for {
		n, err := unix.Read(in, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, nil
		}
		if err := WriteAll(out, buf[:n]); err != nil {
			return done, err
		}
		done += int64(n)
	}
}

// NoSpace wraps disk-full errors with ramdisk.ErrNoSpace.
func NoSpace(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: %w", ramdisk.ErrNoSpace, err)
	}
	return err
}

// SameDev reports whether a and b are on one file system.
func SameDev(a, b string) bool {
	var x, y unix.Stat_t
	return unix.Stat(a, &x) == nil && unix.Stat(b, &y) == nil && x.Dev == y.Dev
}

// FreeSpace returns the bytes available to an unprivileged writer at path.
func FreeSpace(path string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", path, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// CopyFunc copies one regular file's data from src to a new file dst.
type CopyFunc func(ctx context.Context, src, dst string) error
