//go:build linux

package tree

import (
	"errors"

	"golang.org/x/sys/unix"
)

// FileFlags are a folder entry's inode flags as statx reports them
// (STATX_ATTR_*): the ones a write-back must not override, and nodump,
// which a file it replaces passes on.
type FileFlags uint64

// The protections a write-back keeps off (chattr +i, +a).
const (
	FlagImmutable  FileFlags = unix.STATX_ATTR_IMMUTABLE
	FlagAppendOnly FileFlags = unix.STATX_ATTR_APPEND
)

// LstatAt lstats name in the folder dirfd with its flags (one statx).
func LstatAt(dirfd int, name string) (unix.Stat_t, FileFlags, error) {
	var x unix.Statx_t
	err := RetryEINTR(func() error {
		return unix.Statx(dirfd, name, unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_SYNC_AS_STAT, unix.STATX_BASIC_STATS, &x)
	})
	if err != nil {
		return unix.Stat_t{}, 0, err
	}
	if x.Mask&unix.STATX_BASIC_STATS != unix.STATX_BASIC_STATS {
		var st unix.Stat_t
		err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		return st, 0, err
	}
	st := unix.Stat_t{
		Dev: unix.Mkdev(x.Dev_major, x.Dev_minor), Ino: x.Ino, Mode: uint32(x.Mode), Uid: x.Uid, Gid: x.Gid,
		Rdev: unix.Mkdev(x.Rdev_major, x.Rdev_minor), Size: int64(x.Size), Blocks: int64(x.Blocks),
		Atim: unix.Timespec{Sec: x.Atime.Sec, Nsec: int64(x.Atime.Nsec)},
		Mtim: unix.Timespec{Sec: x.Mtime.Sec, Nsec: int64(x.Mtime.Nsec)},
		Ctim: unix.Timespec{Sec: x.Ctime.Sec, Nsec: int64(x.Ctime.Nsec)},
	}
	setNlink(&st.Nlink, x.Nlink)
	return st, FileFlags(x.Attributes & x.Attributes_mask), nil
}

// Protection names the flag that keeps a write-back off the entry: ""
// when there is none.
func (f FileFlags) Protection() string {
	switch {
	case f&FlagImmutable != 0:
		return "immutable (chattr +i)"
	case f&FlagAppendOnly != 0:
		return "append-only (chattr +a)"
	}
	return ""
}

// fsNodumpFL is FS_NODUMP_FL of FS_IOC_SETFLAGS.
const fsNodumpFL = 0x40

// PassFlags gives a new file that replaces one with flags f the flags a
// user set that are not protections (nodump); where the file system
// keeps none, nothing.
func PassFlags(fd int, f FileFlags) {
	if f&unix.STATX_ATTR_NODUMP != 0 {
		unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, fsNodumpFL)
	}
}

// RenameNoReplace renames from to to in the folders given, failing with
// EEXIST when to exists (renameat2 RENAME_NOREPLACE). A file system that
// cannot (EINVAL) gets a check then a plain rename.
func RenameNoReplace(fromfd int, from string, tofd int, to string) error {
	err := unix.Renameat2(fromfd, from, tofd, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) {
		return lookThenRename(fromfd, from, tofd, to)
	}
	return err
}

// ExchangeAt swaps two names atomically (renameat2 RENAME_EXCHANGE);
// errors.ErrUnsupported where the file system cannot.
func ExchangeAt(fromfd int, from string, tofd int, to string) error {
	err := unix.Renameat2(fromfd, from, tofd, to, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return errors.ErrUnsupported
	}
	return err
}
