//go:build darwin

package mirror

import (
	"errors"

	"golang.org/x/sys/unix"
)

// fileFlags are a folder entry's BSD flags (st_flags: chflags).
type fileFlags uint32

// The protections a write-back keeps off (the user's chflags uchg,
// uappnd; schg and sappnd are checked too).
const (
	flagImmutable  fileFlags = unix.UF_IMMUTABLE
	flagAppendOnly fileFlags = unix.UF_APPEND
)

// lstatAt lstats name in the folder dirfd with its flags.
func lstatAt(dirfd int, name string) (unix.Stat_t, fileFlags, error) {
	var st unix.Stat_t
	err := retryEINTR(func() error { return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
	return st, fileFlags(st.Flags), err
}

// protection names the flag that keeps a write-back off the entry: ""
// when there is none.
func (f fileFlags) protection() string {
	switch {
	case f&unix.SF_IMMUTABLE != 0:
		return "immutable (schg)"
	case f&flagImmutable != 0:
		return "immutable (uchg)"
	case f&unix.SF_APPEND != 0:
		return "append-only (sappnd)"
	case f&flagAppendOnly != 0:
		return "append-only (uappnd)"
	}
	return ""
}

// passFlags gives a new file that replaces one with flags f the flags a
// user set that are not protections (hidden, nodump).
func passFlags(fd int, f fileFlags) {
	if keep := f & (unix.UF_HIDDEN | unix.UF_NODUMP); keep != 0 {
		unix.Fchflags(fd, int(keep))
	}
}

// renameNoReplace renames from to to in the folders given, failing with
// EEXIST when to exists (renameatx_np RENAME_EXCL). A file system that
// cannot (exFAT, SMB: ENOTSUP) gets a check then a plain rename.
func renameNoReplace(fromfd int, from string, tofd int, to string) error {
	err := unix.RenameatxNp(fromfd, from, tofd, to, unix.RENAME_EXCL)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return lookThenRename(fromfd, from, tofd, to)
	}
	return err
}

// exchangeAt swaps two names atomically (renameatx_np RENAME_SWAP);
// errors.ErrUnsupported where the file system cannot.
func exchangeAt(fromfd int, from string, tofd int, to string) error {
	err := unix.RenameatxNp(fromfd, from, tofd, to, unix.RENAME_SWAP)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return errors.ErrUnsupported
	}
	return err
}
