//go:build darwin

package tree

import (
	"errors"

	"golang.org/x/sys/unix"
)

// FileFlags are a folder entry's BSD flags (st_flags: chflags).
type FileFlags uint32

// The protections a write-back keeps off (the user's chflags uchg,
// uappnd; schg and sappnd are checked too).
const (
	FlagImmutable  FileFlags = unix.UF_IMMUTABLE
	FlagAppendOnly FileFlags = unix.UF_APPEND
)

// LstatAt lstats name in the folder dirfd with its flags.
func LstatAt(dirfd int, name string) (unix.Stat_t, FileFlags, error) {
	var st unix.Stat_t
	err := RetryEINTR(func() error { return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
	return st, FileFlags(st.Flags), err
}

// Protection names the flag that keeps a write-back off the entry: ""
// when there is none.
func (f FileFlags) Protection() string {
	switch {
	case f&unix.SF_IMMUTABLE != 0:
		return "immutable (schg)"
	case f&FlagImmutable != 0:
		return "immutable (uchg)"
	case f&unix.SF_APPEND != 0:
		return "append-only (sappnd)"
	case f&FlagAppendOnly != 0:
		return "append-only (uappnd)"
	}
	return ""
}

// PassFlags gives a new file that replaces one with flags f the flags a
// user set that are not protections (hidden, nodump).
func PassFlags(fd int, f FileFlags) {
	if keep := f & (unix.UF_HIDDEN | unix.UF_NODUMP); keep != 0 {
		unix.Fchflags(fd, int(keep))
	}
}

// RenameNoReplace renames from to to in the folders given, failing with
// EEXIST when to exists (renameatx_np RENAME_EXCL). A file system that
// cannot (exFAT, SMB: ENOTSUP) gets a check then a plain rename.
func RenameNoReplace(fromfd int, from string, tofd int, to string) error {
	err := unix.RenameatxNp(fromfd, from, tofd, to, unix.RENAME_EXCL)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return lookThenRename(fromfd, from, tofd, to)
	}
	return err
}

// ExchangeAt swaps two names atomically (renameatx_np RENAME_SWAP);
// errors.ErrUnsupported where the file system cannot.
func ExchangeAt(fromfd int, from string, tofd int, to string) error {
	err := unix.RenameatxNp(fromfd, from, tofd, to, unix.RENAME_SWAP)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return errors.ErrUnsupported
	}
	return err
}
