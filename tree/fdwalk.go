package tree

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// This file reads a mirror folder through directory descriptors: every
// folder is opened relative to its parent with O_NOFOLLOW, every entry is
// looked at with fstatat and opened with openat, so nobody who can write
// the folder or its parent can redirect a load or a write-back by swapping
// a folder for a symlink halfway. A folder of another file system (a mount
// point inside the mirror folder) is never entered. The folder is in use:
// a folder removed (or replaced) between its parent's listing and its own
// read is a path that vanished (FsEntry.Vanished), never a failed walk.

// ErrMountInside: a folder inside the mirror folder is another file system.
var ErrMountInside = errors.New("holds a mount point of another file system")

const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// OpenDirAt opens folder name under dirfd, never following a symlink.
func OpenDirAt(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, dirFlags, 0)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// OpenDirPath opens an absolute folder path component by component, none
// of them followed if it is a symlink (ELOOP or ENOTDIR then).
func OpenDirPath(path string) (int, error) {
	if !filepath.IsAbs(path) {
		return -1, fmt.Errorf("open %s: not an absolute path", path)
	}
	fd, err := unix.Open("/", dirFlags, 0)
	if err != nil {
		return -1, fmt.Errorf("open /: %w", err)
	}
	for _, c := range strings.Split(strings.Trim(filepath.Clean(path), "/"), "/") {
		if c == "" {
			continue
		}
		next, err := OpenDirAt(fd, c)
		unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("open %s (at %s, never following symlinks): %w", path, c, err)
		}
		fd = next
	}
	return fd, nil
}

// ReadNames lists the names in the folder dirfd refers to, sorted.
func ReadNames(dirfd int) ([]string, error) {
	// A duplicate descriptor: reading moves the folder's offset.
	d, err := OpenDirAt(dirfd, ".")
	if err != nil {
		return nil, err
	}
	defer unix.Close(d)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	var names []string
	for {
		n, err := unix.ReadDirent(d, *bp)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent((*bp)[:n], -1, names)
	}
	slices.Sort(names)
	return names, nil
}

// FsEntry is one path of a folder as the descriptor walk found it.
type FsEntry struct {
	Rel  string
	St   unix.Stat_t
	Link string // symlink target
	// Vanished: a folder its parent listed that was gone by the time it
	// was read (removed, replaced, a symlink now; Linux reads a removed
	// folder as ENOENT). Never entered: what it holds is unknown, and its
	// parent's listing changed since the walk read it. A path that
	// changed, to look at again; never "everything in it was deleted".
	Vanished bool
}

// Kind is the entry's kind as a tree records it.
func (e *FsEntry) Kind() Kind { return KindOf(uint32(e.St.Mode)) }

// IsReg tells a regular file from every other kind (KindOf calls FIFOs,
// sockets and devices files; the walk does not).
func (e *FsEntry) IsReg() bool { return e.St.Mode&unix.S_IFMT == unix.S_IFREG }

// IsDir tells a folder from every other kind.
func (e *FsEntry) IsDir() bool { return e.St.Mode&unix.S_IFMT == unix.S_IFDIR }

// IsLink tells a symlink from every other kind.
func (e *FsEntry) IsLink() bool { return e.St.Mode&unix.S_IFMT == unix.S_IFLNK }

// ErrSkipDir, returned by a walkFn for a folder, leaves it unentered.
var ErrSkipDir = errors.New("skip this folder")

// walkFn sees each entry with its parent folder's descriptor (valid only
// during the call) and its name there.
type walkFn func(parent int, name string, e *FsEntry) error

// WalkFolder visits root (rel ".", parent -1) and everything under it,
// parents before children, siblings sorted (pathLess order). It returns
// errMountInside when a folder under root is another file system, and
// never follows a symlink. A folder under root gone by the time it is
// read is given to fn with Vanished set, and not entered; an entry gone
// by the time it is looked at is left out, as are the names of a folder
// removed while they are looked at: the folder is in use.
func WalkFolder(rootfd int, fn walkFn) error {
	var st unix.Stat_t
	if err := unix.Fstat(rootfd, &st); err != nil {
		return fmt.Errorf("fstat: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return errors.New("not a folder")
	}
	root := &FsEntry{Rel: ".", St: st}
	if err := fn(-1, ".", root); err != nil {
		return err
	}
	names, err := ReadNames(rootfd)
	if err != nil {
		return fmt.Errorf("read folder .: getdents: %w", err)
	}
	return walkIn(rootfd, ".", names, uint64(st.Dev), fn)
}

// walkIn walks the folder dirfd (rel, its names read) as WalkFolder does.
func walkIn(dirfd int, rel string, names []string, dev uint64, fn walkFn) error {
	for _, n := range names {
		e := &FsEntry{Rel: JoinRel(rel, n)}
		if err := unix.Fstatat(dirfd, n, &e.St, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // gone while we looked
			}
			return fmt.Errorf("lstat %s: %w", e.Rel, err)
		}
		if e.IsLink() {
			l, err := ReadlinkAt(dirfd, n)
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EINVAL) {
				continue // gone, or no longer a symlink: changed while we looked
			}
			if err != nil {
				return err
			}
			e.Link = l
		}
		if e.IsDir() && uint64(e.St.Dev) != dev {
			return fmt.Errorf("%s: %w (never entered)", e.Rel, ErrMountInside)
		}
		if !e.IsDir() {
			if err := fn(dirfd, n, e); err != nil && !errors.Is(err, ErrSkipDir) {
				return err
			}
			continue
		}
		// The folder is opened and its names read before fn sees it, so
		// that fn knows whether it vanished.
		sub, subNames, err := readSub(dirfd, n, e)
		if errors.Is(err, errVanished) {
			e.Vanished = true
		} else if err != nil {
			return err
		}
		err = fn(dirfd, n, e)
		if err == nil && !e.Vanished {
			err = walkIn(sub, e.Rel, subNames, dev, fn)
		}
		if sub >= 0 {
			unix.Close(sub)
		}
		if err != nil && !errors.Is(err, ErrSkipDir) {
			return err
		}
	}
	return nil
}

// readSub opens folder name of dirfd, which must still be the folder e
// (the same inode), and reads its names; errVanished when it is gone,
// replaced or a symlink now, or was removed while it was read (sub -1).
func readSub(dirfd int, name string, e *FsEntry) (sub int, names []string, err error) {
	sub, err = OpenDirAt(dirfd, name)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
		return -1, nil, errVanished
	}
	if err != nil {
		return -1, nil, fmt.Errorf("open folder %s: %w", e.Rel, err)
	}
	var now unix.Stat_t
	if err := unix.Fstat(sub, &now); err != nil {
		unix.Close(sub)
		return -1, nil, fmt.Errorf("fstat %s: %w", e.Rel, err)
	}
	if now.Ino != e.St.Ino || now.Dev != e.St.Dev {
		unix.Close(sub)
		return -1, nil, errVanished // removed and made again since its lstat
	}
	names, err = ReadNames(sub)
	if errors.Is(err, unix.ENOENT) {
		unix.Close(sub)
		return -1, nil, errVanished
	}
	if err != nil {
		unix.Close(sub)
		return -1, nil, fmt.Errorf("read folder %s: getdents: %w", e.Rel, err)
	}
	return sub, names, nil
}

// JoinRel is the relative path of name in the folder dir ("." the top).
func JoinRel(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// SplitRel returns the folder and the name of a relative path.
func SplitRel(rel string) (dir, name string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return ".", rel
	}
	return rel[:i], rel[i+1:]
}

// ReadlinkAt is the target of the symlink name in the folder dirfd, however
// long.
func ReadlinkAt(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 4 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", fmt.Errorf("readlink %s: %w", name, err)
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// ErrReplaced: the path holds another file (or kind) than the one looked
// at before: it changed while it was read.
var ErrReplaced = errors.New("it was replaced while it was read")

// OpenFileAt opens regular file name under dirfd for reading, never
// following a symlink and never blocking on a FIFO put there meanwhile;
// the file opened must be the one want describes (same inode), else
// ErrReplaced.
func OpenFileAt(dirfd int, name string, want *unix.Stat_t) (int, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG ||
		(want != nil && (st.Ino != want.Ino || st.Dev != want.Dev)) {
		unix.Close(fd)
		return -1, fmt.Errorf("open %s: %w", name, ErrReplaced)
	}
	return fd, nil
}
