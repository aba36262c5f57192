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

// populate is false: macOS maps pages as they are first written.
func populate([]byte) bool { return false }
