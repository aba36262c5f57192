//go:build darwin

package tree

import "golang.org/x/sys/unix"

// statEntries gives take the name and lstat of each entry of the open
// folder fd ("." and ".." left out), or the error its lstat gave, and add
// what take made of it (as on Linux: scan_linux.go); grow is told how many
// entries there are first.
func statEntries(fd int, grow func(n int), take func(name []byte, st *unix.Stat_t, err error) (found, error), add func(*found)) error {
	names, err := DirNames(fd)
	if err != nil {
		return err
	}
	grow(len(names))
	return statEach(fd, names, take, add)
}

// lstatEntry lstats name in folder fd (a mount's root is told by its
// device alone here).
func lstatEntry(fd int, name string, st *unix.Stat_t) error {
	return unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
}

// openFolderBeneath opens folder rel beneath top (device dev) with flags,
// refusing a symlink anywhere on the way (O_NOFOLLOW_ANY: ELOOP) and a
// folder of another device, a mount crossed (EXDEV).
func openFolderBeneath(top int, rel string, flags int, dev uint64) (int, error) {
	fd, err := OpenBeneath(top, rel, flags, 0)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || uint64(st.Dev) != dev {
		unix.Close(fd)
		if err == nil {
			err = unix.EXDEV
		}
		return -1, err
	}
	return fd, nil
}

// populate is false: macOS maps pages as they are first written.
func populate([]byte) bool { return false }
