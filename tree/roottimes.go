package tree

import (
	"os"

	"golang.org/x/sys/unix"
)

// KeepRootTimes gives the folder to the access and modification times of
// the folder from: a disk made again (Reclaim, and resuming one) keeps its
// root folder's times, not those of the new file system. Symlinks are not
// followed.
func KeepRootTimes(from, to string) error {
	var st unix.Stat_t
	if err := unix.Lstat(from, &st); err != nil {
		return &os.PathError{Op: "keep root times: lstat", Path: from, Err: err}
	}
	ts := []unix.Timespec{st.Atim, st.Mtim}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, to, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &os.PathError{Op: "keep root times: utimensat", Path: to, Err: err}
	}
	return nil
}
