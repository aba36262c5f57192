package foldersync

import (
	"errors"
	"fmt"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// The folders of a Mirror folder a write-back writes in: opened through
// their parents' descriptors (at most maxOpenDirs at once), made where the
// disk has them and the folder not, and given back their times when the
// disk did not change them.

// parentOf opens folder rel for a new entry: a folder this write-back made
// (fresh), or the folder's own, made when missing.
func (w *PathWrite) parentOf(rel string) (fd int, fresh bool, err error) {
	if _, ok := w.fresh[rel]; ok {
		fd, err = w.dirFd(rel)
		return fd, true, err
	}
	if fd, err = w.ensureDir(rel); err == nil {
		w.touch(rel, fd)
	}
	return fd, false, err
}

// touch notes the times of folder rel (open as fd) before the write-back
// first changes what it holds: a folder the disk did not change gets them
// back at the end.
func (w *PathWrite) touch(rel string, fd int) {
	if _, ok := w.touched[rel]; ok {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil {
		w.touched[rel] = [2]unix.Timespec{tree.StatAtime(&st), tree.StatMtime(&st)}
	}
}

// untouch gives the folders the write-back wrote in, which the disk did
// not change, their times back.
func (w *PathWrite) untouch() {
	for rel, ts := range w.touched {
		if it := w.byPath[rel]; it != nil && !it.failed && it.Act == setMeta {
			continue // the disk's times (dirMeta)
		}
		w.trim(maxOpenDirs)
		if fd, err := w.dirFd(rel); err == nil {
			unix.UtimesNanoAt(fd, ".", ts[:], 0)
		}
	}
}

// FreshDir is where a folder the write-back made is now: its parent and
// its name there (a temporary one until it is renamed into place).
type FreshDir struct{ Parent, Name string }

// maxOpenDirs is how many folders a write-back keeps open at once.
const maxOpenDirs = 256

// dirFd opens folder rel of the folder (beneath it, no symlink on the
// way), or a folder the write-back made where it is now. The descriptor
// stays valid until the next trim.
func (w *PathWrite) dirFd(rel string) (int, error) {
	if rel == "." {
		return w.rootfd, nil
	}
	if fd, ok := w.dirs[rel]; ok {
		return fd, nil
	}
	var fd int
	var err error
	if f, ok := w.fresh[rel]; ok {
		pfd, perr := w.dirFd(f.Parent)
		if perr != nil {
			return -1, perr
		}
		fd, err = tree.OpenDirAt(pfd, f.Name)
	} else {
		fd, err = tree.OpenBeneath(w.rootfd, rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return -1, err
	}
	w.dirs[rel] = fd
	return fd, nil
}

// trim closes the open folders once there are more than keep (between
// paths: no descriptor is in use then).
func (w *PathWrite) trim(keep int) {
	if len(w.dirs) <= keep {
		return
	}
	for rel, fd := range w.dirs {
		unix.Close(fd)
		delete(w.dirs, rel)
	}
}

// ensureDir opens folder rel, making it (and its parents) where the folder
// lacks it; a file or link where a folder must be moves aside as a
// conflict copy.
func (w *PathWrite) ensureDir(rel string) (int, error) {
	if fd, err := w.dirFd(rel); err == nil {
		return fd, nil
	}
	pdir, name := tree.SplitRel(rel)
	pfd, err := w.ensureDir(pdir)
	if err != nil {
		return -1, err
	}
	w.touch(pdir, pfd)
	st, _, err := tree.LstatAt(pfd, name)
	switch {
	case err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR:
		// Made meanwhile (the folder is in use: an install), or not
		// reachable beneath the folder; gone again is ENOENT.
		fd, err := w.dirFd(rel)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return fd, err
		}
		return -1, fmt.Errorf("open folder %s: not reachable without crossing a symlink or mount", rel)
	case err == nil:
		c, err := w.moveAside(pfd, name, rel)
		if err != nil {
			return -1, err
		}
		w.conflict(rel, c, "a folder on the disk, a file in the folder: the folder keeps the name, the folder's file is the copy")
	case !errors.Is(err, unix.ENOENT):
		return -1, err
	}
	mode, _ := w.dirMode(rel)
	if err := unix.Mkdirat(pfd, name, mode|0o700); err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, err
	}
	w.made = append(w.made, rel)
	fd, err := w.dirFd(rel)
	if err == nil {
		w.chownFd(fd, rel, nil)
	}
	return fd, err
}

// dirMode is the mode a folder the write-back makes gets, and its
// modification time (0: unknown): the disk's.
func (w *PathWrite) dirMode(rel string) (uint32, int64) {
	if it := w.byPath[rel]; it != nil && it.D != nil && it.D.Kind == tree.KindDir {
		return it.D.Mode & 0o7777, tree.TsNano(it.D.MTime)
	}
	if w.Rec != nil {
		if r, err := w.Rec.Get(rel); err == nil && r != nil && r.D != nil && r.D.Kind == tree.KindDir {
			return r.D.Mode & 0o7777, r.D.MTime
		}
	}
	return 0o755, 0
}

// makeDir makes the disk's folder it under target (mode 0700 until its
// contents are in).
func (w *PathWrite) makeDir(it *planItem, pfd int, target string) error {
	if err := unix.Mkdirat(pfd, target, 0o700); err != nil {
		return err
	}
	fd, err := tree.OpenDirAt(pfd, target)
	if err != nil {
		return err
	}
	var st unix.Stat_t
	unix.Fstat(fd, &st)
	it.ino = uint64(st.Ino)
	dir, _ := tree.SplitRel(it.Path)
	w.fresh[it.Path] = FreshDir{Parent: dir, Name: target}
	w.dirs[it.Path] = fd
	w.chownFd(fd, it.Path, it)
	return nil
}
