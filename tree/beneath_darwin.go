//go:build darwin

package tree

import (
	"golang.org/x/sys/unix"
)

// atSymlinkNofollowAny makes an *at call refuse a symlink anywhere in the
// path (macOS 11 and later).
const atSymlinkNofollowAny = 0x0800

// OpenBeneath opens rel relative to dirfd, refusing a symlink anywhere in
// the path (O_NOFOLLOW_ANY, macOS 11 and later). The paths it is given are
// checked to be clean and relative (no ".."), so they stay beneath dirfd.
func OpenBeneath(dirfd int, rel string, flags int, mode uint32) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, rel, flags|unix.O_NOFOLLOW_ANY, mode)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// cloneAt makes rel under t an APFS clone of in (fclonefileat); ok is false
// across volumes or on HFS+.
func cloneAt(t *DirTree, rel string, in int) (int, bool) {
	pfd, name, done, err := t.Parent(rel)
	if err != nil {
		return -1, false
	}
	defer done()
	if unix.Fclonefileat(in, pfd, name, unix.CLONE_NOFOLLOW) != nil {
		return -1, false
	}
	out, err := t.Open(rel, unix.O_WRONLY, 0)
	if err != nil {
		unix.Unlinkat(pfd, name, 0)
		return -1, false
	}
	return out, true
}

// setTimes sets the access and modification times of rel, refusing a
// symlink on the way (x/sys has no futimens here).
func setTimes(t *DirTree, _ int, rel string, atime, mtime unix.Timespec) error {
	ts := []unix.Timespec{atime, mtime}
	return unix.UtimesNanoAt(t.Fd, rel, ts, unix.AT_SYMLINK_NOFOLLOW|atSymlinkNofollowAny)
}

// lsetxattrAt sets an xattr of the symlink name in the folder pfd, through
// a descriptor of the link itself (O_SYMLINK).
func lsetxattrAt(pfd int, name, attr string, v []byte) error {
	fd, err := unix.Openat(pfd, name, unix.O_RDONLY|unix.O_SYMLINK|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fsetxattr(fd, attr, v, 0)
}

// mkfifoAt makes the FIFO rel (x/sys has no mkfifoat here: by path, its
// folder having just been opened without a symlink on the way).
func mkfifoAt(t *DirTree, _ int, _, rel string) error { return unix.Mkfifo(t.Path(rel), 0o600) }
