//go:build darwin

package mirror

import "golang.org/x/sys/unix"

// statEntries calls fn with the name and lstat of each entry of the open
// folder fd ("." and ".." left out), or the error its lstat gave; grow
// is told how many entries there are first.
func statEntries(fd int, grow func(n int), fn func(name []byte, st *unix.Stat_t, err error) error) error {
	names, err := dirNames(fd)
	if err != nil {
		return err
	}
	grow(len(names))
	for _, n := range names {
		if n == "." || n == ".." {
			continue
		}
		var st unix.Stat_t
		err := unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err := fn([]byte(n), &st, err); err != nil {
			return err
		}
	}
	return nil
}

// populate is false: macOS maps pages as they are first written.
func populate([]byte) bool { return false }
