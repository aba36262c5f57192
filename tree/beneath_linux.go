//go:build linux

package tree

import (
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// OpenBeneath opens rel relative to dirfd with openat2: the path may not
// leave dirfd's folder, cross a mount, or pass through any symlink (the
// last component included). Kernels before 5.6 have no openat2: there the
// path is walked one component at a time with O_NOFOLLOW, and a folder of
// another device than dirfd's is refused as a mount (EXDEV; a bind mount
// of the same file system is not told there).
func OpenBeneath(dirfd int, rel string, flags int, mode uint32) (int, error) {
	if !noOpenat2.Load() {
		how := unix.OpenHow{Flags: uint64(flags),
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV}
		if flags&unix.O_CREAT != 0 {
			how.Mode = uint64(mode)
		}
		for {
			fd, err := unix.Openat2(dirfd, rel, &how)
			if errors.Is(err, unix.ENOSYS) {
				noOpenat2.Store(true)
				break
			}
			if !errors.Is(err, unix.EINTR) && !errors.Is(err, unix.EAGAIN) {
				return fd, err
			}
		}
	}
	return walkBeneath(dirfd, rel, flags, mode)
}

// noOpenat2 is set once openat2 turned out to be missing.
var noOpenat2 atomic.Bool

// walkBeneath opens rel relative to dirfd one component at a time, each
// folder with O_NOFOLLOW|O_DIRECTORY and the last with O_NOFOLLOW; a
// component of another device than dirfd's is a mount crossed: EXDEV. rel
// is clean and relative (checked where it was read), so it stays beneath.
func walkBeneath(dirfd int, rel string, flags int, mode uint32) (int, error) {
	var top unix.Stat_t
	if err := unix.Fstat(dirfd, &top); err != nil {
		return -1, err
	}
	parts := strings.Split(rel, "/")
	at := dirfd
	for i, p := range parts {
		f, m := unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(0)
		if i == len(parts)-1 {
			f, m = flags|unix.O_NOFOLLOW, mode
		}
		fd, err := unix.Openat(at, p, f, m)
		for errors.Is(err, unix.EINTR) {
			fd, err = unix.Openat(at, p, f, m)
		}
		if at != dirfd {
			unix.Close(at)
		}
		if err != nil {
			return -1, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Dev != top.Dev {
			unix.Close(fd)
			if err == nil {
				err = unix.EXDEV
			}
			return -1, err
		}
		at = fd
	}
	return at, nil
}

// cloneAt makes rel under t a reflink of in (FICLONE: btrfs, XFS,
// bcachefs); ok is false where that fails, and nothing is left.
func cloneAt(t *DirTree, rel string, in int) (int, bool) {
	out, err := t.Open(rel, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o600)
	if err != nil {
		return -1, false
	}
	if unix.IoctlFileClone(out, in) != nil {
		unix.Close(out)
		if pfd, name, done, err := t.Parent(rel); err == nil {
			unix.Unlinkat(pfd, name, 0)
			done()
		}
		return -1, false
	}
	return out, true
}

// setTimes sets the access and modification times of fd: utimensat with
// no path acts on the descriptor itself.
func setTimes(_ *DirTree, fd int, _ string, atime, mtime unix.Timespec) error {
	ts := [2]unix.Timespec{atime, mtime}
	for {
		_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

// lsetxattrAt sets an xattr of the symlink name in the folder pfd, through
// /proc/self/fd (the folder's descriptor; the link itself is not followed).
func lsetxattrAt(pfd int, name, attr string, v []byte) error {
	return unix.Lsetxattr("/proc/self/fd/"+strconv.Itoa(pfd)+"/"+name, attr, v, 0)
}

// mkfifoAt makes the FIFO name in the folder pfd.
func mkfifoAt(_ *DirTree, pfd int, name, _ string) error { return unix.Mkfifoat(pfd, name, 0o600) }
