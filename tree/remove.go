package tree

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// This file is the one way RAMBar empties or removes a tree on a disk, in
// a mirror folder or in its data folder: through descriptors, beneath the
// folder it is given, never following a symlink, and never leaving that
// folder's file system. A folder or file another file system (or a bind
// mount, of any file system) is mounted on is never entered, emptied or
// removed: it is left whole with what it holds, and the removal ends in a
// *MountError that names it. os.RemoveAll, by contrast, empties whatever
// is mounted inside before it fails at the mount point itself.

// MountError says a removal met mount points beneath the folder it was to
// empty (or a check found them before anything was removed) and left them
// and what they hold untouched.
type MountError struct {
	// Path is the first mount point met: absolute where the removal was
	// given a path, else relative to the folder it was given.
	Path string
	// Bind: the mount is of the same file system as the folder around it
	// (a bind mount); else it is another file system.
	Bind bool
	// More is how many other mount points were met.
	More int
}

// Error says it in one line: "/Volumes/Work/project is a mount of its own
// (another file system): unmount it first".
func (e *MountError) Error() string {
	what := "another file system"
	if e.Bind {
		what = "a bind mount"
	}
	more := ""
	if e.More > 0 {
		more = fmt.Sprintf(", and %d more mount(s) inside", e.More)
	}
	return fmt.Sprintf("%s is a mount of its own (%s)%s: unmount it first", e.Path, what, more)
}

// Unwrap makes a MountError an ErrMountInside.
func (e *MountError) Unwrap() error { return ErrMountInside }

// RemoveAt removes name in the folder dirfd and everything beneath it. A
// name already gone is no error. What is mounted on name or beneath it is
// left (see MountError).
func RemoveAt(dirfd int, name string) error {
	return removeTree(dirfd, "", name, nil)
}

// RemoveAll removes path and everything beneath it as RemoveAt does; the
// folder holding it is opened by its path, as the system resolves it (it
// is RAMBar's: the data folder, a disk's mount point), and the last
// component of path is never followed. A path already gone is no error.
func RemoveAll(path string) error {
	path = filepath.Clean(path)
	dir, name := filepath.Split(path)
	if name == "" || name == "." || name == ".." {
		return fmt.Errorf("remove %s: not a name to remove", path)
	}
	fd, err := openRoot(dir, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	defer unix.Close(fd)
	return removeTree(fd, filepath.Clean(dir), name, nil)
}

// Empty removes everything in the folder root but the names keep holds
// (nil: none), as RemoveAt removes each; root itself is not followed if it is a
// symlink.
func Empty(root string, keep func(name string) bool) error {
	root = filepath.Clean(root)
	fd, err := openRoot(root, unix.O_NOFOLLOW)
	if err != nil {
		return fmt.Errorf("empty %s: %w", root, err)
	}
	defer unix.Close(fd)
	return removeTree(fd, root, "", keep)
}

// ClearDisk removes everything on the disk mounted at root but what is
// never contents there (ReservedIn: an older RAMBar's marker, the file
// system's own lost+found), as Empty removes: through descriptors beneath
// root, never following a symlink, never entering, emptying or removing a
// mount point, so nothing outside the disk is touched. It is the one way a
// disk is cleared (a reclaim's resume, before it fills a disk again).
func ClearDisk(root string) error {
	if err := Empty(root, ReservedIn(root)); err != nil {
		return fmt.Errorf("clear %s: %w", root, err)
	}
	return nil
}

// openRoot opens the folder path where a removal begins, resolved as the
// system does (it is RAMBar's own: a disk's mount point, the data folder)
// but for its last component when nofollow is unix.O_NOFOLLOW.
func openRoot(path string, nofollow int) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|nofollow, 0)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// remover is one removal: the file system and mount it stays on, and what
// it met.
type remover struct {
	top    mountID
	shown  string // the path of the folder the removal began in ("": named relative to it)
	mounts []string
	bind   bool // the first mount met is a bind mount
	err    error
	failed int // how many paths could not be removed
}

// removeTree removes name in dirfd (name "": empties dirfd, but the names
// keep holds) and is what every exported removal runs.
func removeTree(dirfd int, shown, name string, keep func(string) bool) error {
	top, err := mountOf(dirfd)
	if err != nil {
		return fmt.Errorf("remove in %s: %w", orDot(shown), err)
	}
	r := &remover{top: top, shown: shown}
	if name == "" {
		r.empty(dirfd, "", keep)
	} else {
		r.remove(dirfd, name, name)
	}
	if len(r.mounts) > 0 {
		return &MountError{Path: r.mounts[0], Bind: r.bind, More: len(r.mounts) - 1}
	}
	return r.err
}

func orDot(s string) string {
	if s == "" {
		return "."
	}
	return s
}

// path is how rel is named in an error.
func (r *remover) path(rel string) string {
	if r.shown == "" {
		return rel
	}
	return filepath.Join(r.shown, rel)
}

func (r *remover) fail(rel string, err error) {
	r.failed++
	if r.err == nil {
		r.err = fmt.Errorf("remove %s: %w", r.path(orDot(rel)), err)
	}
}

func (r *remover) mount(rel string, bind bool) {
	if len(r.mounts) == 0 {
		r.bind = bind
	}
	r.mounts = append(r.mounts, r.path(rel))
}

// empty removes the names of the folder dirfd (rel) but those keep holds.
// Names that appear while it works are taken on a second look (three at
// most).
func (r *remover) empty(dirfd int, rel string, keep func(string) bool) {
	for range 3 {
		names, err := ReadNames(dirfd)
		if err != nil {
			r.fail(orDot(rel), fmt.Errorf("read: %w", err))
			return
		}
		left := 0
		for _, n := range names {
			if keep != nil && keep(n) {
				continue
			}
			left++
			r.remove(dirfd, n, JoinRel(rel, n))
		}
		if left == 0 || keep == nil || len(r.mounts) > 0 || r.err != nil {
			return // a removed folder's own rmdir tells if it was emptied
		}
	}
}

// remove removes name of dirfd (rel) and what is beneath it, never
// entering or removing a mount point. A name is unlinked first (one call
// for a file, as os.RemoveAll does); a file something is bound over is
// refused (EBUSY), a folder (EISDIR; EPERM on macOS) is emptied first.
func (r *remover) remove(dirfd int, name, rel string) {
	uerr := r.unlinkErr(dirfd, name, 0)
	if uerr == nil || errors.Is(uerr, unix.ENOENT) {
		return
	}
	var st unix.Stat_t
	if err := fstatatNoFollow(dirfd, name, &st); err != nil {
		if !errors.Is(err, unix.ENOENT) {
			r.fail(rel, err)
		}
		return
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		if errors.Is(uerr, unix.EBUSY) {
			_, bind := r.mountedAt(dirfd, name, false)
			r.mount(rel, bind) // a file bound over name
			return
		}
		r.fail(rel, uerr)
		return
	}
	for range 3 {
		sub, err := OpenBeneath(dirfd, name, dirFlags, 0)
		switch {
		case errors.Is(err, unix.ENOENT):
			return
		case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR):
			// No longer a folder (a symlink now): never followed, unlinked.
			if err := r.unlinkErr(dirfd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
				r.fail(rel, err)
			}
			return
		case errors.Is(err, unix.EXDEV):
			_, bind := r.mountedAt(dirfd, name, true)
			r.mount(rel, bind)
			return
		case err != nil:
			r.fail(rel, fmt.Errorf("open: %w", err))
			return
		}
		if m, bind := r.crossed(sub); m {
			unix.Close(sub)
			r.mount(rel, bind)
			return
		}
		mounts, failed := len(r.mounts), r.failed
		r.empty(sub, rel, nil)
		unix.Close(sub)
		if len(r.mounts) > mounts || r.failed > failed {
			return // left holding a mount or what could not be removed
		}
		err = r.unlinkErr(dirfd, name, unix.AT_REMOVEDIR)
		switch {
		case err == nil, errors.Is(err, unix.ENOENT):
			return
		case errors.Is(err, unix.ENOTEMPTY), errors.Is(err, unix.EEXIST):
			continue // written to while it was emptied: again
		case errors.Is(err, unix.EBUSY):
			_, bind := r.mountedAt(dirfd, name, true)
			r.mount(rel, bind) // mounted on after it was opened
			return
		}
		r.fail(rel, err)
		return
	}
	r.fail(rel, unix.ENOTEMPTY)
}

func (r *remover) unlinkErr(dirfd int, name string, flags int) error {
	for {
		err := unix.Unlinkat(dirfd, name, flags)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

func fstatatNoFollow(dirfd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
