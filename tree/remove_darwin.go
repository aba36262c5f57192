//go:build darwin

package tree

import (
	"golang.org/x/sys/unix"
)

// mountID is the file system a removal stays on: its device (macOS has no
// bind mounts; a mount is always another device).
type mountID struct{ dev uint64 }

// mountOf is the file system the folder fd is on.
func mountOf(fd int) (mountID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return mountID{}, err
	}
	return mountID{dev: uint64(st.Dev)}, nil
}

// crossed reports whether the folder sub, just opened, is another file
// system (never a bind mount here).
func (r *remover) crossed(sub int) (mounted, bind bool) {
	var st unix.Stat_t
	if err := unix.Fstat(sub, &st); err != nil {
		return true, false // not told: never entered
	}
	return uint64(st.Dev) != r.top.dev, false
}

// mountedAt reports whether another file system is mounted on name of
// dirfd, a folder (dir); a file is never a mount point here.
func (r *remover) mountedAt(dirfd int, name string, dir bool) (mounted, bind bool) {
	var st unix.Stat_t
	if !dir || fstatatNoFollow(dirfd, name, &st) != nil {
		return false, false
	}
	return uint64(st.Dev) != r.top.dev, false
}
