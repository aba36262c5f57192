package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// copyData copies src's bytes to a new file dst (created exclusively with
// mode 0600), letting the kernel move the data (kernelCopy); sync fsyncs
// dst before closing.
//
// sameFS says src and dst share a file system: only then are reflinks and
// copy_file_range tried. perm, when not 0, is set on dst through its
// descriptor before it is closed (restores skip a path lookup per file).
// Both files are opened as bare descriptors: os.File would try (and fail)
// to register each regular file with the poller, several system calls per
// file that dominate copying many small files.
//
// src may be a range of a pack object (see objRef).
//
// mtime, when not nil, is set as dst's modification (and access) time
// through the descriptor, last; timed reports that it was (else the caller
// sets times by path). A restore of a file without xattrs then needs no
// further call on it.
func copyData(src objRef, dst string, sameFS bool, sync bool, perm fs.FileMode, mtime *int64) (n int64, timed bool, err error) {
	if sameFS && !src.Packed {
		if n, cloned, err := cloneTo(src.Path, dst, perm); cloned {
			return n, false, err
		}
	}
	in, err := openRetry(src.Path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, false, fmt.Errorf("open %s: %w", src.Path, err)
	}
	defer unix.Close(in)
	// Created with its final permission when the umask keeps it whole,
	// saving a chmod.
	mode := uint32(0o600)
	if perm != 0 && perm&^fs.ModePerm == 0 && uint32(perm)&createMask == 0 {
		mode, perm = uint32(perm), 0
	}
	out, err := openRetry(dst, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, mode)
	if err != nil {
		return 0, false, noSpace(fmt.Errorf("create %s: %w", dst, err))
	}
	if src.Packed {
		n, err = src.Size, rangeCopy(out, in, src.Off, src.Size)
	} else {
		n, err = kernelCopy(out, in, sameFS)
	}
	if err == nil && perm != 0 {
		err = retryEINTR(func() error { return unix.Fchmod(out, unixMode(perm)) })
	}
	if err == nil && mtime != nil {
		if terr := setTimesFd(out, *mtime); terr == nil {
			timed = true
		} else if !errors.Is(terr, errors.ErrUnsupported) {
			err = fmt.Errorf("set times of %s: %w", dst, terr)
		}
	}
	if err == nil && sync {
		err = retryEINTR(func() error { return unix.Fsync(out) })
	}
	if cerr := unix.Close(out); err == nil {
		err = cerr
	}
	if err != nil {
		return n, timed, noSpace(fmt.Errorf("copy %s to %s: %w", src.Path, dst, err))
	}
	return n, timed, nil
}

// cloneTo makes dst a reflink (clone) of src with permission perm (when
// not 0) and returns its size; cloned is false (and dst not made) where
// clones are not offered.
func cloneTo(src, dst string, perm fs.FileMode) (n int64, cloned bool, err error) {
	if cloneFile(src, dst) != nil {
		return 0, false, nil
	}
	if perm != 0 {
		if err := os.Chmod(dst, perm); err != nil {
			return 0, true, fmt.Errorf("chmod %s: %w", dst, err)
		}
	}
	st, err := os.Lstat(dst)
	if err != nil {
		return 0, true, err
	}
	return st.Size(), true, nil
}

// rangeCopy copies size bytes at off of in to out (at its position).
func rangeCopy(out, in int, off, size int64) error {
	if size == 0 {
		return nil
	}
	if err := kernelRangeCopy(out, in, off, size); err == nil || !errors.Is(err, unix.EINVAL) {
		return err
	}
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
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
			return fmt.Errorf("pack ends %d bytes early: %w", size, errBadManifest)
		}
		if err := writeAll(out, buf[:n]); err != nil {
			return err
		}
		off += int64(n)
		size -= int64(n)
	}
	return nil
}

// writeAll writes all of p to fd, retrying interrupted writes.
func writeAll(fd int, p []byte) error {
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

// createMask is the process's umask, read once: a file created with a
// mode it clears no bit of needs no chmod afterwards.
var createMask = func() uint32 {
	m := unix.Umask(0)
	unix.Umask(m)
	return uint32(m)
}()

// openRetry is open(2), retried when interrupted by a signal.
func openRetry(path string, flags int, mode uint32) (int, error) {
	for {
		fd, err := unix.Open(path, flags, mode)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// retryEINTR runs f until it is not interrupted by a signal.
func retryEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// copyBufs are readWriteCopy's buffers.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// readWriteCopy copies in to out through a buffer, until end of file.
func readWriteCopy(out, in int) (int64, error) {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
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
		if err := writeAll(out, buf[:n]); err != nil {
			return done, err
		}
		done += int64(n)
	}
}

// noSpace wraps disk-full errors with ramdisk.ErrNoSpace.
func noSpace(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: %w", ramdisk.ErrNoSpace, err)
	}
	return err
}

// sameDev reports whether a and b are on one file system.
func sameDev(a, b string) bool {
	var x, y unix.Stat_t
	return unix.Stat(a, &x) == nil && unix.Stat(b, &y) == nil && x.Dev == y.Dev
}

// freeSpace returns the bytes available to an unprivileged writer at path.
func freeSpace(path string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", path, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
