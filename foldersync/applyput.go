package foldersync

import (
	"errors"
	"fmt"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// Tests: beforeRename runs between the last look and the rename (another
// user's swap wins the race there); stepped after each path put in place
// or removed (a kill may land there).
var (
	beforeRename func(pfd int, it *Item)
	stepped      func(it *Item)
)

var (
	// errRaced: the target's entry changed after the decision looked at it.
	errRaced = errors.New("changed while it was synced")
	// errStranger: another process swapped a temporary name for its own
	// file between the last look and the rename; the old version was put
	// back.
	errStranger = errors.New("its temporary file was replaced by another process before its rename")
	// errDirHeld: a folder to be replaced holds something (or is no longer
	// a folder): it keeps its name, the new version its temporary name.
	errDirHeld = errors.New("the folder holds files")
)

// place renames it's new version over its path (or to it, where the
// target had nothing), once a last look finds its temporary name still
// holding what was made there and the path what the decision saw.
func (a *applier) place(it *Item) error {
	if it.fresh {
		a.done(it) // it appeared with its folder
		return nil
	}
	dir, name := tree.SplitRel(it.Path)
	pfd, err := a.tgt.at(dir)
	if err == nil {
		err = a.d.before(it, pfd, name)
	}
	if err == nil && !a.ours(pfd, it) {
		err = errTaken
	}
	if err != nil {
		a.fail(it, err)
		return nil
	}
	if beforeRename != nil {
		beforeRename(pfd, it)
	}
	switch err := a.rename(pfd, it, name); {
	case errors.Is(err, errRaced):
		a.raced(it, false)
		return nil
	case err != nil && (errors.Is(err, errStranger) || givenUp(err)):
		a.fail(it, err)
		return nil
	case err != nil:
		return err
	}
	if it.kind == tree.KindDir {
		a.tgt.moved(it.Path, dir, name)
	} else if a.strangerPlaced(pfd, name, it) {
		a.fail(it, errStranger)
		return nil
	}
	a.done(it)
	return nil
}

func (a *applier) done(it *Item) {
	a.d.done(it)
	if stepped != nil {
		stepped(it)
	}
}

// ours: it's temporary name still holds what was made there.
func (a *applier) ours(pfd int, it *Item) bool {
	var st unix.Stat_t
	return unix.Fstatat(pfd, it.Tmp, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && uint64(st.Ino) == it.ino
}

// rename puts it's temporary name at name in folder pfd: only where name
// is absent (it.was nil), or still holds it.was (else errRaced). A file
// replaces the entry by replaceFile; a folder made for a path holding a
// file is exchanged with it, the file then removed.
func (a *applier) rename(pfd int, it *Item, name string) error {
	if it.was == nil {
		err := tree.RenameNoReplace(pfd, it.Tmp, pfd, name)
		if errors.Is(err, unix.EEXIST) || errors.Is(err, unix.ENOTEMPTY) {
			return errRaced
		}
		return err
	}
	var now unix.Stat_t
	if err := unix.Fstatat(pfd, name, &now, unix.AT_SYMLINK_NOFOLLOW); err != nil || !a.still(it.was, &now) {
		return errRaced
	}
	if it.kind != tree.KindDir {
		return replaceFile(pfd, it.Tmp, name, it.was, it.ino)
	}
	err := tree.ExchangeAt(pfd, it.Tmp, pfd, name)
	if errors.Is(err, errors.ErrUnsupported) {
		if err := unix.Unlinkat(pfd, name, 0); err != nil {
			return err
		}
		return tree.RenameNoReplace(pfd, it.Tmp, pfd, name)
	}
	if err == nil {
		unix.Unlinkat(pfd, it.Tmp, 0) // the old file, now under the temporary name
	}
	return err
}

// replaceFile puts tmp (the new version, inode ino) at name in folder
// pfd, where the old version (expect) is, so that name holds one of the
// two at every moment and never a stranger's file: the two are exchanged,
// and what name then holds is checked. Ours: the old version, now under
// the temporary name, is removed. A stranger's (another user who can
// write the folder swapped the temporary name after the last look): the
// exchange is undone, so name holds the old version again, and the
// stranger's file, back under the temporary name, is removed (a symlink
// is never followed): errStranger. Where the file system cannot exchange,
// tmp is renamed over name and strangerPlaced checks after.
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
		unix.Unlinkat(pfd, tmp, 0) // the old version
		return nil
	}
	if tree.ExchangeAt(pfd, tmp, pfd, name) == nil {
		var back unix.Stat_t
		if unix.Fstatat(pfd, name, &back, unix.AT_SYMLINK_NOFOLLOW) == nil && sameFile(expect, &back) {
			unix.Unlinkat(pfd, tmp, 0) // the stranger's file
			return errStranger
		}
	}
	return nil // whatever name holds now: strangerPlaced deals with it
}

// strangerPlaced checks, after the rename, that name holds what was made
// under the temporary name; a symlink renamed there by a swap is removed
// (never followed).
func (a *applier) strangerPlaced(pfd int, name string, it *Item) bool {
	var now unix.Stat_t
	if err := unix.Fstatat(pfd, name, &now, unix.AT_SYMLINK_NOFOLLOW); err != nil || uint64(now.Ino) == it.ino {
		return false
	}
	if now.Mode&unix.S_IFMT == unix.S_IFLNK {
		unix.Unlinkat(pfd, name, 0)
	}
	return true
}

// still: the target's entry now is the one the decision saw (was): the
// same folder (inode, mode); or the same file (not its ctime: a link
// made to it or a rename of another of its names moves it), or, for one
// of several names whose metadata the apply set through another, as
// that left it.
func (a *applier) still(was, now *unix.Stat_t) bool {
	if was.Mode&unix.S_IFMT == unix.S_IFDIR {
		return now.Ino == was.Ino && now.Mode == was.Mode
	}
	if sameFile(was, now) {
		return true
	}
	set, ok := a.metaSet[now.Ino]
	return ok && now.Ino == was.Ino && sameFile(&set, now)
}

// sameFile is sameBytes (links.go) of two lstats.
func sameFile(a, b *unix.Stat_t) bool { return sameBytes(tree.IdentOf(a), tree.IdentOf(b)) }

// deletions removes, deepest first, what the decisions deleted, where a
// second look finds the path still gone from the source.
func (a *applier) deletions() {
	for i := len(a.items) - 1; i >= 0; i-- {
		it := a.items[i]
		if it.op != opRemove || it.failed || !a.d.gone(it) {
			continue
		}
		a.tgt.trim(maxOpenDirs)
		dir, name := tree.SplitRel(it.Path)
		pfd, err := a.tgt.at(dir)
		if err != nil {
			continue // its folder is gone, and it with it
		}
		a.touch(dir, pfd)
		var now unix.Stat_t
		if err := unix.Fstatat(pfd, name, &now, unix.AT_SYMLINK_NOFOLLOW); errors.Is(err, unix.ENOENT) {
			continue
		} else if err != nil || !a.still(it.was, &now) {
			a.raced(it, false)
			continue
		}
		dirFlag := 0
		if now.Mode&unix.S_IFMT == unix.S_IFDIR {
			dirFlag = unix.AT_REMOVEDIR
		}
		if err := unix.Unlinkat(pfd, name, dirFlag); err != nil && dirFlag != 0 {
			a.raced(it, true) // it holds what was added meanwhile: kept
		} else if err != nil {
			a.fail(it, err)
		} else {
			a.done(it)
		}
	}
}

// overDir puts a file, link or FIFO where the target had a folder the
// deletions emptied (overEmptyDir); a folder still holding something
// keeps its name.
func (a *applier) overDir(it *Item) {
	dir, name := tree.SplitRel(it.Path)
	pfd, err := a.tgt.at(dir)
	if err == nil && !a.ours(pfd, it) {
		err = errTaken
	}
	if err == nil {
		err = overEmptyDir(pfd, it.Tmp, name, func() bool { return a.ours(pfd, it) })
	}
	switch {
	case err == nil:
		a.done(it)
	case errors.Is(err, errDirHeld), errors.Is(err, errRaced):
		a.raced(it, errors.Is(err, errDirHeld))
	default:
		a.fail(it, err)
	}
}

// overEmptyDir puts tmp in place of name, a folder of pfd emptied
// beforehand, so that the path is the folder or the new entry at every
// moment (a kill between an rmdir and a rename would leave it absent):
// the two are exchanged, then the folder is removed under the temporary
// name; if it holds something (added meanwhile) it is exchanged back
// (errDirHeld). Where exchanges are not supported the folder is removed
// first, then, if ours still holds, tmp renamed to the free name (errRaced
// when something appeared there).
func overEmptyDir(pfd int, tmp, name string, ours func() bool) error {
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
		return errTaken
	}
	if err := tree.RenameNoReplace(pfd, tmp, pfd, name); err != nil {
		return errRaced
	}
	return nil
}

// inPlace sets it's new metadata on the target's file, link or FIFO, in
// place (its bytes and inode stay), through a descriptor where it is not
// a symlink, while it is the entry the decision saw.
func (a *applier) inPlace(it *Item) {
	dir, name := tree.SplitRel(it.Path)
	pfd, err := a.tgt.at(dir)
	fd := -1
	var st unix.Stat_t
	switch {
	case err != nil:
	case it.kind == tree.KindSymlink:
		err = unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	default:
		if fd, err = unix.Openat(pfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_NOCTTY|unix.O_CLOEXEC, 0); err == nil {
			defer unix.Close(fd)
			err = unix.Fstat(fd, &st)
		}
	}
	if err != nil {
		a.fail(it, err)
		return
	}
	if !a.still(it.was, &st) {
		a.raced(it, false)
		return
	}
	m := a.d.meta(it, fd, false)
	if it.changed, err = m.set(pfd, name, fd, &st, func(why string) { a.d.note(it.Path, why) }); err != nil {
		a.fail(it, err)
		return
	}
	var now unix.Stat_t
	if unix.Fstatat(pfd, name, &now, unix.AT_SYMLINK_NOFOLLOW) == nil && now.Ino == st.Ino {
		it.now = &now
		if now.Nlink > 1 {
			a.metaSet[uint64(now.Ino)] = now // its other names changed with it
		}
	}
	a.done(it)
}

// dirMetas gives the folders made here their metadata, deepest first:
// made, before they appear; else at the end, again (what they hold moved
// their times), with the folders whose metadata changed.
func (a *applier) dirMetas(made bool) {
	for i := len(a.items) - 1; i >= 0; i-- {
		if it := a.items[i]; !it.failed && it.kind == tree.KindDir && (it.op == opPut || !made && it.op == opMeta) {
			a.tgt.trim(maxOpenDirs)
			a.dirMeta(it)
		}
	}
}

// dirMeta gives a folder made here (opPut) or changed (opMeta: while it
// is the one the decision saw) its metadata and times.
func (a *applier) dirMeta(it *Item) {
	fd, err := a.tgt.at(it.Path)
	var st unix.Stat_t
	if err != nil || unix.Fstat(fd, &st) != nil {
		return
	}
	if it.op == opMeta && !a.still(it.was, &st) {
		a.raced(it, false)
		return
	}
	m := a.d.meta(it, fd, it.op == opPut)
	note := func(why string) { a.d.note(it.Path, why) }
	changed, err := m.set(fd, ".", fd, &st, note)
	if err != nil {
		note(fmt.Sprintf("mode not set (%v)", err))
	}
	a.timed[it.Path] = true
	if it.op == opMeta {
		it.changed = changed
		a.done(it)
	}
}

// touch notes the times of folder rel (open as fd) before the apply first
// changes what it holds.
func (a *applier) touch(rel string, fd int) {
	if _, ok := a.touched[rel]; ok {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil {
		a.touched[rel] = [2]unix.Timespec{tree.StatAtime(&st), tree.StatMtime(&st)}
	}
}

// untouch gives the folders the apply wrote in (but whose metadata it set)
// the times the direction says.
func (a *applier) untouch() {
	for rel, before := range a.touched {
		if a.timed[rel] {
			continue
		}
		a.tgt.trim(maxOpenDirs)
		if fd, err := a.tgt.at(rel); err == nil {
			if ts, ok := a.d.dirTimes(rel, fd, before); ok {
				unix.UtimesNanoAt(fd, ".", ts[:], 0)
			}
		}
	}
}
