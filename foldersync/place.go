package foldersync

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// The write-back's phases, in order:
//
//  1. the temporary names are listed in the store (journal.go);
//  2. each new version is made under its temporary name in its own
//     folder, through that folder's descriptor, never following a
//     symlink: files copied from the store (holes kept) and checked
//     against their hash, with owner, xattrs, mode, flags and times set
//     on the new file; a folder the disk made is made under a temporary
//     name too, and what it holds made in it under the final names;
//  3. one flush (syncfs; macOS: F_FULLFSYNC), so no rename names a file
//     whose bytes are not on stable storage;
//  4. in path order, each is renamed over the old name once a last look
//     finds the old name still holding what the plan was made from
//     (RENAME_NOREPLACE where it expected nothing): if not, the folder's
//     version stays and the disk's becomes a conflict copy, never
//     overwriting what changed meanwhile; metadata-only changes are set
//     in place;
//  5. deletions, deepest first, only while a second look finds the disk
//     still as its scan saw it (diskStill) and the path gone from it, and
//     the folder's entry still what the record says; a folder is removed
//     only once empty;
//  6. folders' metadata, deepest first (their contents change their time);
//  7. a second flush, before the record names the new versions.

// errRaced: the folder's entry changed after the plan looked at it.
var errRaced = errors.New("changed in the folder while it was written back")

// write carries out the plan.
func (w *PathWrite) write(ctx context.Context) error {
	var temps []TempAt
	for _, it := range w.Items {
		if it.Act == diskCopy || it.Act == writeDisk {
			it.Tmp = tempName()
			dir, _ := tree.SplitRel(it.Path)
			temps = append(temps, TempAt{Dir: dir, Name: it.Tmp})
		}
	}
	if len(temps) > 0 {
		if err := WriteJournal(w.S.Dir, temps); err != nil {
			return err
		}
	}
	for _, it := range w.Items {
		if err := ctx.Err(); err != nil {
			w.undo()
			return err
		}
		w.trim(maxOpenDirs)
		if err := w.prepare(it); err != nil {
			if Refused(err) || errors.Is(err, unix.ENOENT) {
				// ENOENT: a folder of it gone from the mirror folder
				// meanwhile (a git clean): given up, pending, looked at
				// again by the next write-back.
				w.fail(it, err)
				continue
			}
			w.undo()
			return fmt.Errorf("write %s (the folder is as it was): %w", filepath.Join(w.Folder, it.Path), tree.NoSpace(err))
		}
	}
	// The folders made under temporary names get their metadata before
	// they appear (deepest first), and again, for their times, at the end.
	for i := len(w.Items) - 1; i >= 0; i-- {
		if it := w.Items[i]; !it.failed && it.makesDir() {
			w.trim(maxOpenDirs)
			w.dirMeta(it)
		}
	}
	if len(temps) > 0 || len(w.made) > 0 {
		if err := w.flush(); err != nil {
			w.undo()
			return err
		}
	}
	if w.Placing != nil {
		w.Placing(w)
	}
	for _, it := range w.Items {
		w.trim(maxOpenDirs)
		if err := w.put(it); err != nil {
			return fmt.Errorf("write %s: %w", filepath.Join(w.Folder, it.Path), tree.NoSpace(err))
		}
	}
	w.deletions()
	for _, it := range w.Items {
		if it.replacesDir() && !it.failed {
			w.trim(maxOpenDirs)
			w.putOverDir(it)
		}
	}
	for i := len(w.Items) - 1; i >= 0; i-- {
		if it := w.Items[i]; !it.failed && (it.makesDir() || it.Act == setMeta && it.F.isDir()) {
			w.trim(maxOpenDirs)
			w.dirMeta(it)
		}
	}
	for i := len(w.made) - 1; i >= 0; i-- {
		w.trim(maxOpenDirs)
		w.madeMeta(w.made[i])
	}
	w.untouch()
	// What is still under a temporary name (a path given up, a stranger's
	// file put there) goes: the names are the write-back's.
	for _, p := range CleanTemps(w.rootfd, temps) {
		w.wb.NotKept = append(w.wb.NotKept, "a temporary name could not be removed: "+p)
	}
	if err := w.flush(); err != nil {
		return err
	}
	w.Changes = make([]SyncPath, 0, len(w.Items))
	for _, it := range w.Items {
		w.Changes = append(w.Changes, it.entry())
	}
	return nil
}

func (w *PathWrite) flush() error {
	if err := tree.CommitFlush(w.rootfd); err != nil {
		return tree.NoSpace(fmt.Errorf("flush %s: %w", w.Folder, err))
	}
	w.Flushes++
	return nil
}

// Refused: an error of one path rather than of the whole write-back:
// permissions, flags, or a symlink, file or mount put in the way of its
// folder (never followed or crossed).
func Refused(err error) bool {
	for _, e := range []error{unix.EPERM, unix.EACCES, unix.ELOOP, unix.ENOTDIR, unix.EXDEV} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// inUnplaced reports (and marks it failed, quietly) whether it lies
// inside a folder the write-back made that was not put at its name: it
// failed, or something appeared there and it became a conflict copy. The
// record keeps what is inside pending, for the next write-back.
func (w *PathWrite) inUnplaced(it *planItem) bool {
	for p := it.Path; p != "."; {
		p, _ = tree.SplitRel(p)
		if w.unplaced[p] {
			it.failed = true
			return true
		}
	}
	return false
}

// fail gives up on one path: the folder keeps its version, the record
// keeps the path pending, and the save says why.
func (w *PathWrite) fail(it *planItem, err error) {
	if it.makesDir() {
		w.unplaced[it.Path] = true
	}
	it.failed = true
	w.wb.NotKept = append(w.wb.NotKept, fmt.Sprintf("%s: the disk's version was not written (%v); it is in snapshot %s", it.Path, err, w.Id))
}

// undo removes what a write-back that stops before its first rename made.
func (w *PathWrite) undo() {
	for _, it := range w.Items {
		if it.Tmp == "" || it.fresh || it.ino == 0 {
			continue
		}
		dir, _ := tree.SplitRel(it.Path)
		if pfd, err := w.dirFd(dir); err == nil {
			RemoveAllAt(pfd, it.Tmp)
		}
	}
	for i := len(w.made) - 1; i >= 0; i-- {
		dir, name := tree.SplitRel(w.made[i])
		if pfd, err := w.dirFd(dir); err == nil {
			unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR)
		}
	}
	RemoveJournal(w.S.Dir)
}

// prepare makes it's new version under its temporary name (or, inside a
// folder this write-back made, under its own).
func (w *PathWrite) prepare(it *planItem) error {
	if it.Act != writeDisk && it.Act != diskCopy || it.failed || w.inUnplaced(it) {
		return nil
	}
	dir, name := tree.SplitRel(it.Path)
	pfd, fresh, err := w.parentOf(dir)
	if err != nil {
		return err
	}
	target := it.Tmp
	if fresh && it.Act == writeDisk {
		target, it.fresh = name, true
	}
	if it.makesDir() {
		return w.makeDir(it, pfd, target)
	}
	if it.D.Kind == tree.KindFile && it.D.HardLink != "" && w.linkable(it) {
		it.link = true // made by a link to its first name, once that is in place
		return nil
	}
	if q := w.keptName(it); q != nil {
		it.link, it.linkTo = true, q // made by a link to the folder's file of its other name
		return nil
	}
	return w.makeNew(it, pfd, target)
}

// put renames it's new version into place (or sets its metadata).
func (w *PathWrite) put(it *planItem) error {
	if it.failed || w.inUnplaced(it) {
		return nil
	}
	switch {
	case it.Act == keepFolder:
		if it.F != nil && it.F.E.IsReg() && it.DS != nil && it.F.hash == it.DS.Hash {
			w.placed[it.Path] = uint64(it.F.E.St.Ino)
		}
		it.after = keptSide(it.F)
		w.note(it)
		return nil
	case it.Act == setMeta && !it.F.isDir():
		w.setMetaAt(it)
		if it.after != nil && it.F.E.IsReg() && it.DS != nil && it.F.hash == it.DS.Hash {
			w.placed[it.Path] = uint64(it.F.E.St.Ino) // its later names link to it
		}
		return nil
	case it.Act == setMeta, it.Act == deletePath, it.replacesDir():
		return nil // after the deletions
	case it.Act == diskCopy:
		w.toCopy(it, it.Conflict)
		it.after = keptSide(it.F)
		return nil
	}
	dir, name := tree.SplitRel(it.Path)
	pfd, err := w.dirFd(dir)
	if err != nil {
		w.fail(it, err)
		return nil
	}
	if it.link {
		if err := w.linkFirst(it, pfd, name); err != nil {
			return err
		}
	}
	if it.failed || it.fresh {
		if !it.failed {
			w.placed[it.Path] = it.ino
			it.after = w.newSide(it, it.Path)
			w.note(it)
		}
		return nil
	}
	if it.Aside && it.F != nil {
		c, err := w.moveAside(pfd, name, it.Path)
		if err != nil {
			w.fail(it, err)
			return nil
		}
		w.conflict(it.Path, c, it.Conflict)
		it.Conflict = ""
	}
	w.note(it)
	if !w.ours(pfd, it) {
		return nil
	}
	var expect *unix.Stat_t
	if it.F != nil && !it.Aside {
		expect = &it.F.E.St
	}
	err = w.rename(pfd, it.Tmp, name, expect, it.makesDir(), it.ino)
	if errors.Is(err, errStranger) {
		w.fail(it, err)
		return nil // the folder's version is back under its name
	}
	if errors.Is(err, errRaced) {
		c := w.toCopy(it, "changed in the folder while it was written back: the folder's version is kept under the name, the disk's is the copy")
		if it.makesDir() {
			w.unplaced[it.Path] = true // what it holds is part of the copy
			if c != "" {
				_, cname := tree.SplitRel(c)
				w.fresh[it.Path] = FreshDir{Parent: dir, Name: cname}
			}
		}
		it.after = nil // read again next time
		return nil
	}
	if err != nil {
		if Refused(err) || errors.Is(err, unix.ENOENT) { // ENOENT: its folder gone meanwhile, as in write
			w.fail(it, err)
			RemoveAllAt(pfd, it.Tmp)
			return nil
		}
		return err
	}
	if it.makesDir() {
		w.fresh[it.Path] = FreshDir{Parent: dir, Name: name}
	} else if w.strangerPlaced(pfd, name, it) {
		return nil
	}
	w.placed[it.Path] = it.ino
	it.after = w.newSide(it, it.Path)
	return nil
}

// ours checks it's temporary name still holds what was made there; if
// another process replaced it, the path is given up (the folder keeps its
// version) and the stranger is left where it is.
func (w *PathWrite) ours(pfd int, it *planItem) bool {
	var st unix.Stat_t
	if unix.Fstatat(pfd, it.Tmp, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || uint64(st.Ino) != it.ino {
		w.fail(it, errors.New("its temporary file was replaced by another process"))
		unix.Unlinkat(pfd, it.Tmp, 0) // whatever is under the name now is not renamed anywhere
		return false
	}
	return true
}

// rename puts tmp (the write-back's, inode ino) at name in folder pfd:
// only where name is absent (expect nil), or still holds expect (else
// errRaced). A file replaces the folder's through replaceFile; a folder
// made for a file the folder had (dir) is exchanged with it.
func (w *PathWrite) rename(pfd int, tmp, name string, expect *unix.Stat_t, dir bool, ino uint64) error {
	if expect == nil {
		err := tree.RenameNoReplace(pfd, tmp, pfd, name)
		if errors.Is(err, unix.EEXIST) || errors.Is(err, unix.ENOTEMPTY) {
			return errRaced
		}
		return err
	}
	var now unix.Stat_t
	if err := unix.Fstatat(pfd, name, &now, unix.AT_SYMLINK_NOFOLLOW); err != nil || !SameFile(expect, &now) {
		return errRaced
	}
	if !dir {
		return replaceFile(pfd, tmp, name, expect, ino)
	}
	err := tree.ExchangeAt(pfd, tmp, pfd, name)
	if errors.Is(err, errors.ErrUnsupported) {
		if err := unix.Unlinkat(pfd, name, 0); err != nil {
			return err
		}
		return tree.RenameNoReplace(pfd, tmp, pfd, name)
	}
	if err == nil {
		unix.Unlinkat(pfd, tmp, 0) // the folder's old file, now under the temporary name
	}
	return err
}

// SameFile: the inode the plan saw, unchanged (ctime is not compared: a
// rename of another name of the same inode changes it).
func SameFile(a, b *unix.Stat_t) bool {
	return a.Ino == b.Ino && a.Size == b.Size && a.Mode == b.Mode && tree.TsNano(tree.StatMtime(a)) == tree.TsNano(tree.StatMtime(b))
}

// moveAside renames the folder's name (path rel) to a free conflict copy
// name in the same folder, keeping its inode, and returns that path.
func (w *PathWrite) moveAside(pfd int, name, rel string) (string, error) {
	return w.toFreeName(pfd, name, rel)
}

// toCopy renames it's temporary file to a conflict copy of its path, and
// returns that path ("" when it could not).
func (w *PathWrite) toCopy(it *planItem, what string) string {
	dir, _ := tree.SplitRel(it.Path)
	pfd, err := w.dirFd(dir)
	if err == nil && w.ours(pfd, it) {
		var c string
		if c, err = w.toFreeName(pfd, it.Tmp, it.Path); err == nil {
			w.conflict(it.Path, c, what)
			return c
		}
	}
	if err != nil {
		w.fail(it, err)
	}
	return ""
}

// toFreeName renames from (in folder pfd) to the first free conflict
// copy name of rel.
func (w *PathWrite) toFreeName(pfd int, from, rel string) (string, error) {
	for n := 1; n < 1000; n++ {
		c := ConflictName(rel, w.At, n)
		_, cname := tree.SplitRel(c)
		err := tree.RenameNoReplace(pfd, from, pfd, cname)
		if !errors.Is(err, unix.EEXIST) && !errors.Is(err, unix.ENOTEMPTY) {
			return c, err
		}
	}
	return "", fmt.Errorf("no free conflict copy name for %s", rel)
}

// note reports it's conflict that has no copy (one side's deletion).
func (w *PathWrite) note(it *planItem) {
	if it.Conflict != "" {
		w.conflict(it.Path, "", it.Conflict)
		it.Conflict = ""
	}
}

func (w *PathWrite) conflict(p, c, what string) {
	w.wb.Conflicts = append(w.wb.Conflicts, Conflict{Path: p, Copy: c, What: what})
}
