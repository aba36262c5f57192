package foldersync

import (
	"fmt"
	"path/filepath"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// dirs are the folders of one side (the mirror folder or the disk) open
// now: each opened beneath the side's top, never through a symlink, or,
// for a folder this run made, where it is (under its temporary name until
// it is renamed into place). At most maxOpenDirs stay open.
type dirs struct {
	root  int
	open  map[string]int
	fresh map[string]freshDir
}

// freshDir is where a folder a run made is now: its parent and its name
// there.
type freshDir struct{ parent, name string }

const maxOpenDirs = 256

func newDirs(root int) dirs {
	return dirs{root: root, open: map[string]int{}, fresh: map[string]freshDir{}}
}

// at opens folder rel; the descriptor stays valid until the next trim.
func (d *dirs) at(rel string) (int, error) {
	if rel == "." {
		return d.root, nil
	}
	if fd, ok := d.open[rel]; ok {
		return fd, nil
	}
	var fd int
	var err error
	if f, ok := d.fresh[rel]; ok {
		pfd, perr := d.at(f.parent)
		if perr != nil {
			return -1, perr
		}
		fd, err = tree.OpenDirAt(pfd, f.name)
	} else {
		fd, err = tree.OpenBeneath(d.root, rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return -1, err
	}
	d.open[rel] = fd
	return fd, nil
}

// moved notes that the folder made at rel is now name in its parent.
func (d *dirs) moved(rel, parent, name string) {
	d.fresh[rel] = freshDir{parent, name}
	if fd, ok := d.open[rel]; ok {
		unix.Close(fd)
		delete(d.open, rel)
	}
}

// trim closes the open folders once there are more than keep (between
// paths: no descriptor is in use then).
func (d *dirs) trim(keep int) {
	if len(d.open) <= keep {
		return
	}
	for rel, fd := range d.open {
		unix.Close(fd)
		delete(d.open, rel)
	}
}

func (d *dirs) close() {
	d.trim(0)
	if d.root >= 0 {
		unix.Close(d.root)
		d.root = -1
	}
}

// openFolder opens a mirror folder through its parent, never following a
// symlink, and refuses one that is a mount point of another file system
// (unless bound: a hidden copy, a mount point by design), telling by the
// two descriptors, never by a path.
func openFolder(path string, bound bool) (int, error) {
	parent, err := tree.OpenDirPath(filepath.Dir(path))
	if err != nil {
		return -1, err
	}
	defer unix.Close(parent)
	fd, err := tree.OpenDirAt(parent, filepath.Base(path))
	if err != nil {
		return -1, fmt.Errorf("open %s (never following a symlink): %w", path, err)
	}
	var p, f unix.Stat_t
	err = unix.Fstat(parent, &p)
	if err == nil {
		err = unix.Fstat(fd, &f)
	}
	if err == nil && p.Dev != f.Dev && !bound {
		err = fmt.Errorf("%s is a mount point of another file system; it is never mirrored", path)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}
