//go:build unix

package localapi

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// owned reports whether dir is a folder (not a link) of this user.
func owned(dir string) bool {
	var st unix.Stat_t
	if unix.Lstat(dir, &st) != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == os.Geteuid()
}

// ErrUnsafe marks a place that is not the user's alone: a folder or socket
// of another user, a folder others may enter, a link where the folder or
// socket should be.
var ErrUnsafe = errors.New("unsafe")

// openDir opens the socket's folder without following a link, checks that
// it is this user's, and (make) makes it 0700 first, tightening a folder
// of this user that others may enter.
func openDir(dir string, make bool) (*os.File, error) {
	if make {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("agent socket folder: %w", err)
		}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return nil, fmt.Errorf("%w: %s is not a folder (a link or a file is there)", ErrUnsafe, dir)
		}
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	f := os.NewFile(uintptr(fd), dir)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "stat", Path: dir, Err: err}
	}
	if int(st.Uid) != os.Geteuid() {
		f.Close()
		return nil, fmt.Errorf("%w: %s belongs to uid %d, not to this user (uid %d)", ErrUnsafe, dir, st.Uid, os.Geteuid())
	}
	if st.Mode&0o077 != 0 {
		if !make {
			f.Close()
			return nil, fmt.Errorf("%w: others may enter %s (mode %04o)", ErrUnsafe, dir, st.Mode&0o7777)
		}
		if err := unix.Fchmod(fd, 0o700); err != nil {
			f.Close()
			return nil, &os.PathError{Op: "chmod", Path: dir, Err: err}
		}
	}
	return f, nil
}

// socketStat is what is at name in the open folder dir, not following a
// link; ok false when nothing is there.
func socketStat(dir *os.File, name string) (st unix.Stat_t, ok bool, err error) {
	err = unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return st, false, nil
	}
	if err != nil {
		return st, false, &os.PathError{Op: "stat", Path: dir.Name() + "/" + name, Err: err}
	}
	return st, true, nil
}

// checkSocket refuses what is at name unless it is a socket of this user.
func checkSocket(dir *os.File, name string) (found bool, err error) {
	st, ok, err := socketStat(dir, name)
	if err != nil || !ok {
		return false, err
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFSOCK:
		return true, fmt.Errorf("%w: %s/%s is not a socket", ErrUnsafe, dir.Name(), name)
	case int(st.Uid) != os.Geteuid():
		return true, fmt.Errorf("%w: %s/%s belongs to uid %d, not to this user", ErrUnsafe, dir.Name(), name, st.Uid)
	}
	return true, nil
}

// refused reports a connection nobody accepts: a socket left by an agent
// that is gone.
func refused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}
