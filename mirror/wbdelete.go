package mirror

import (
	"errors"

	"golang.org/x/sys/unix"
)

// deletions removes, deepest first, what the disk deleted, after a
// second look at the disk: while the disk is not still as its scan saw it,
// a path it lacks may have moved during the scan, so every deletion waits
// for a later write-back.
func (w *pathWrite) deletions() {
	still, asked := false, false
	for i := len(w.items) - 1; i >= 0; i-- {
		it := w.items[i]
		if it.Act != deletePath || it.failed {
			continue
		}
		if !asked {
			still, asked = w.diskfd >= 0 && w.s.diskStill(w.disk, w.id), true
		}
		if !still || onDisk(w.diskfd, it.Path) {
			it.failed, it.postponed = true, true
			w.wb.Postponed++
			continue
		}
		w.trim(maxOpenDirs)
		w.remove(it)
	}
}

// remove deletes it from the folder when it still holds what the plan saw.
func (w *pathWrite) remove(it *planItem) {
	dir, name := splitRel(it.Path)
	pfd, err := w.dirFd(dir)
	if err != nil {
		return // its folder is gone, and it with it
	}
	w.touch(dir, pfd)
	var now unix.Stat_t
	if err := unix.Fstatat(pfd, name, &now, unix.AT_SYMLINK_NOFOLLOW); errors.Is(err, unix.ENOENT) {
		return
	}
	if it.F.isDir() {
		if now.Ino != it.F.e.st.Ino {
			it.after = nil
			return
		}
		if err := unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR); err != nil {
			it.after = keptSide(it.F) // it holds what the folder added: kept
			w.wb.KeptOutside++
		}
		return
	}
	if !sameFile(&it.F.e.st, &now) {
		w.conflict(it.Path, "", "deleted on the disk, changed in the folder while it was written back: the folder's version is kept")
		return
	}
	if err := unix.Unlinkat(pfd, name, 0); err != nil {
		w.fail(it, err)
	}
}

// putOverDir puts a file, link or FIFO where the folder had a folder the
// deletions emptied; a folder still holding something (added in the
// folder) keeps its name, and the disk's version is the copy. The new
// version is exchanged with the folder, which is then removed under the
// temporary name, so the path is the old folder or the new file at every
// moment (a kill between an rmdir and a rename left it absent); where
// exchanges are not supported the folder is removed first.
func (w *pathWrite) putOverDir(it *planItem) {
	dir, name := splitRel(it.Path)
	pfd, err := w.dirFd(dir)
	if err != nil {
		w.fail(it, err)
		return
	}
	if !w.ours(pfd, it) {
		return
	}
	err = exchangeAt(pfd, it.tmp, pfd, name)
	if err == nil {
		if rerr := unix.Unlinkat(pfd, it.tmp, unix.AT_REMOVEDIR); rerr == nil {
			w.placed[it.Path] = it.ino
			it.after = w.newSide(it, it.Path)
			return
		}
		// Something was added in the folder meanwhile: the folder goes back.
		if err := exchangeAt(pfd, it.tmp, pfd, name); err != nil {
			w.fail(it, err)
			return
		}
		w.toCopy(it, "a file on the disk, a folder holding files in the folder: the folder keeps the name, the disk's version is the copy")
		it.after = keptSide(it.F)
		return
	}
	if !errors.Is(err, errors.ErrUnsupported) && !errors.Is(err, unix.ENOENT) {
		w.fail(it, err)
		return
	}
	if err := unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		w.toCopy(it, "a file on the disk, a folder holding files in the folder: the folder keeps the name, the disk's version is the copy")
		it.after = keptSide(it.F)
		return
	}
	if !w.ours(pfd, it) {
		return
	}
	if err := w.rename(pfd, it.tmp, name, nil, false); err != nil {
		w.toCopy(it, "appeared in the folder while it was written back: the folder's version is kept under the name, the disk's is the copy")
		return
	}
	w.placed[it.Path] = it.ino
	it.after = w.newSide(it, it.Path)
}
