//go:build linux

package mirror

import (
	"bytes"
	"encoding/binary"
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// statEntries calls fn with the name and lstat of each entry of the open
// folder fd ("." and ".." left out), or the error its lstat gave. Names
// are read straight from the getdents records and each is stat'ed through
// statx with the record's own NUL-terminated name, so a scan makes no
// string per entry but the path it keeps (statx also skips the kernel's
// conversion to the old stat layout: about a sixth less time per call
// here). name is valid only during the call.
func statEntries(fd int, fn func(name []byte, st *unix.Stat_t, err error) error) error {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var st unix.Stat_t // fn copies what it keeps
	for {
		n, err := unix.Getdents(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		for off := 0; off+19 < n; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 20 || off+reclen > n {
				return unix.EIO
			}
			name := buf[off+19 : off+reclen]
			if z := bytes.IndexByte(name, 0); z >= 0 {
				name = name[:z]
			} else {
				return unix.EIO
			}
			start := off + 19
			off += reclen
			if len(name) == 0 || (name[0] == '.' && (len(name) == 1 || (len(name) == 2 && name[1] == '.'))) {
				continue
			}
			err := statxAt(fd, buf[start:start+len(name)+1], &st)
			if err := fn(name, &st, err); err != nil {
				return err
			}
		}
	}
}

// statxAt lstats the entry named nameZ (its name and a NUL) in folder fd,
// through statx, filling the fields of st a scan reads; it falls back to
// fstatat where a file system cannot tell them all.
func statxAt(fd int, nameZ []byte, st *unix.Stat_t) error {
	var x unix.Statx_t
	_, _, e := unix.Syscall6(unix.SYS_STATX, uintptr(fd), uintptr(unsafe.Pointer(&nameZ[0])),
		uintptr(unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_DONT_SYNC), uintptr(unix.STATX_BASIC_STATS), uintptr(unsafe.Pointer(&x)), 0)
	if e != 0 {
		return e
	}
	if x.Mask&unix.STATX_BASIC_STATS != unix.STATX_BASIC_STATS {
		return unix.Fstatat(fd, string(nameZ[:len(nameZ)-1]), st, unix.AT_SYMLINK_NOFOLLOW)
	}
	*st = unix.Stat_t{
		Dev: unix.Mkdev(x.Dev_major, x.Dev_minor), Ino: x.Ino, Mode: uint32(x.Mode), Uid: x.Uid, Gid: x.Gid,
		Rdev: unix.Mkdev(x.Rdev_major, x.Rdev_minor), Size: int64(x.Size), Blocks: int64(x.Blocks),
		Atim: unix.Timespec{Sec: x.Atime.Sec, Nsec: int64(x.Atime.Nsec)},
		Mtim: unix.Timespec{Sec: x.Mtime.Sec, Nsec: int64(x.Mtime.Nsec)},
		Ctim: unix.Timespec{Sec: x.Ctime.Sec, Nsec: int64(x.Ctime.Nsec)},
	}
	setNlink(&st.Nlink, x.Nlink) // uint64 on amd64, uint32 on arm64
	return nil
}

func setNlink[T ~uint32 | ~uint64](p *T, n uint32) { *p = T(n) }

// populate maps every page of b, writable, in one call
// (MADV_POPULATE_WRITE, Linux 5.14); false if the kernel cannot.
func populate(b []byte) bool {
	return unix.Madvise(b, unix.MADV_POPULATE_WRITE) == nil
}
