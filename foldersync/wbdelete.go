package foldersync

import (
	"errors"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// deletions removes, deepest first, what the disk deleted, after a
// second look at the disk: while the disk is not still as its scan saw it,
// a path it lacks may have moved during the scan, so every deletion waits
// for a later write-back.
func (w *PathWrite) deletions() {
	still, asked := false, false
	for i := len(w.Items) - 1; i >= 0; i-- {
		it := w.Items[i]
		if it.Act != deletePath || it.failed {
			continue
		}
		if !asked {
			still, asked = w.diskfd >= 0 && diskStill(w.S, w.Disk, w.Id), true
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
func (w *PathWrite) remove(it *planItem) {
	dir, name := tree.SplitRel(it.Path)
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
		if now.Ino != it.F.E.St.Ino {
			it.after = nil
			return
		}
		if err := unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR); err != nil {
			it.after = keptSide(it.F) // it holds what the folder added: kept
			w.wb.KeptOutside++
		}
		return
	}
	if !w.asPlanned(&it.F.E.St, &now) {
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
func (w *PathWrite) putOverDir(it *planItem) {
	dir, name := tree.SplitRel(it.Path)
	pfd, err := w.dirFd(dir)
	if err != nil {
		w.fail(it, err)
		return
	}
	if !w.ours(pfd, it) {
		return
	}
	switch err := OverEmptyDir(pfd, it.Tmp, name, func() bool { return w.ours(pfd, it) }); {
	case err == nil:
		w.placed[it.Path] = it.ino
		it.after = w.newSide(it, it.Path)
	case errors.Is(err, errDirHeld):
		w.toCopy(it, "a file on the disk, a folder holding files in the folder: the folder keeps the name, the disk's version is the copy")
		it.after = keptSide(it.F)
	case errors.Is(err, errRaced):
		w.toCopy(it, "appeared in the folder while it was written back: the folder's version is kept under the name, the disk's is the copy")
	case errors.Is(err, ErrNotOurs):
		// ours said why (the path is given up)
	default:
		w.fail(it, err)
	}
}

var (
	// errDirHeld: the folder to be replaced holds something (or is no
	// longer a folder): it keeps its name, and the new entry its temporary
	// name.
	errDirHeld = errors.New("the folder holds files")
	// ErrNotOurs: the temporary name no longer holds what was made there.
	ErrNotOurs = errors.New("the temporary name was replaced")
)

// OverEmptyDir puts tmp in place of name, a folder of pfd emptied
// beforehand, so that the path is the folder or the new entry at every
// moment (a kill between an rmdir and a rename would leave it absent):
// the two are exchanged, then the folder is removed under the temporary
// name; if it holds something (added meanwhile) it is exchanged back
// (errDirHeld). Where exchanges are not supported the folder is removed
// first, then, if ours still holds, tmp renamed to the free name (errRaced
// when something appeared there). The write-back (in the mirror folder)
// and the refresh (on the disk) both use it.
func OverEmptyDir(pfd int, tmp, name string, ours func() bool) error {
	err := tree.ExchangeAt(pfd, tmp, pfd, name)
	if err == nil {
		if unix.Unlinkat(pfd, tmp, unix.AT_REMOVEDIR) == nil {
			return nil
		}
		if err := tree.ExchangeAt(pfd, tmp, pfd, name); err != nil {
			return err
		}
		return errDirHeld
	}
	if !errors.Is(err, errors.ErrUnsupported) && !errors.Is(err, unix.ENOENT) {
		return err
	}
	if err := unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return errDirHeld
	}
	if !ours() {
		return ErrNotOurs
	}
	if err := tree.RenameNoReplace(pfd, tmp, pfd, name); err != nil {
		return errRaced
	}
	return nil
}

// errStranger: another process swapped a temporary name for its own file
// between the last look and the rename; the folder's version was put back.
var errStranger = errors.New("its temporary file was replaced by another process before its rename")

// replaceFile puts tmp (the write-back's new version, inode ino) at name
// in folder pfd, where the folder's version (expect) is, so that name
// holds one of the two at every moment and never a stranger's file: the
// two are exchanged, and what name then holds is checked. Ours: the
// folder's old version, now under the temporary name, is removed. A
// stranger's (another user who can write the folder swapped the temporary
// name after the last look): the exchange is undone, so name holds the
// folder's version again, and the stranger's file, back under the
// temporary name, is removed (a symlink is never followed): errStranger.
// Where the file system cannot exchange, tmp is renamed over name and
// strangerPlaced checks after.
func replaceFile(pfd int, tmp, name string, expect *unix.Stat_t, ino uint64) error {
	err := tree.ExchangeAt(pfd, tmp, pfd, name)
	if errors.Is(err, errors.ErrUnsupported) {
		return unix.Renameat(pfd, tmp, pfd, name)
	}
	if err != nil {
		return err
	}
	var now unix.Stat_t
	if unix.Fstatat(pfd, name, &now, unix.AT_SYMLINK_NOFOLLOW) == nil && uint64(now.Ino) == ino {
		unix.Unlinkat(pfd, tmp, 0) // the folder's old version
		return nil
	}
	if tree.ExchangeAt(pfd, tmp, pfd, name) == nil {
		var back unix.Stat_t
		if unix.Fstatat(pfd, name, &back, unix.AT_SYMLINK_NOFOLLOW) == nil && SameFile(expect, &back) {
			unix.Unlinkat(pfd, tmp, 0) // the stranger's file
			return errStranger
		}
	}
	return nil // whatever name holds now: strangerPlaced deals with it
}

// strangerPlaced checks, after the rename, that name holds what was made
// under the temporary name: another user who can write the folder may
// swap the temporary name between the last look (ours) and the rename. A
// symlink renamed in that way is removed (never followed), and the path is
// given up for this write-back (kept pending).
func (w *PathWrite) strangerPlaced(pfd int, name string, it *planItem) bool {
	var now unix.Stat_t
	if err := unix.Fstatat(pfd, name, &now, unix.AT_SYMLINK_NOFOLLOW); err != nil || uint64(now.Ino) == it.ino {
		return false
	}
	if now.Mode&unix.S_IFMT == unix.S_IFLNK {
		unix.Unlinkat(pfd, name, 0)
	}
	w.fail(it, errStranger)
	return true
}
