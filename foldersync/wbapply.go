package foldersync

import (
	"errors"
	"fmt"
	"slices"

	"rambar/snapstore"
	"rambar/syncrec"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// The write-back's side of the applier (apply.go): the disk's versions
// from the store, written into the folder; what changed in the folder
// meanwhile kept, the disk's version its conflict copy (conflict.go).

// parent opens folder rel of the folder for a new entry, making it (and
// its parents) where the folder lacks it; a file or link where a folder
// must be moves aside as a conflict copy.
func (w *PathWrite) parent(rel string) (int, error) {
	if fd, err := w.a.tgt.at(rel); err == nil {
		return fd, nil
	}
	pdir, name := tree.SplitRel(rel)
	pfd, err := w.parent(pdir)
	if err != nil {
		return -1, err
	}
	w.a.touch(pdir, pfd)
	st, _, err := tree.LstatAt(pfd, name)
	switch {
	case err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR:
		// Made meanwhile (the folder is in use: an install), or not
		// reachable beneath the folder; gone again is ENOENT.
		fd, err := w.a.tgt.at(rel)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return fd, err
		}
		return -1, fmt.Errorf("open folder %s: not reachable without crossing a symlink or mount", rel)
	case err == nil:
		c, err := w.toFreeName(pfd, name, rel)
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
	w.a.made = append(w.a.made, rel)
	fd, err := w.a.tgt.at(rel)
	if u, g := w.ownerOf(rel, nil); err == nil && (u >= 0 || g >= 0) && unix.Fchown(fd, u, g) != nil {
		w.note(rel, "owner not set")
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

// dirTimes: a folder the write-back wrote in keeps its times, but one it
// made for a path inside (the folder had deleted it) gets its mode and
// the disk's time where it is known.
func (w *PathWrite) dirTimes(rel string, fd int, before [2]unix.Timespec) ([2]unix.Timespec, bool) {
	if !slices.Contains(w.a.made, rel) {
		return before, true
	}
	mode, mtime := w.dirMode(rel)
	unix.Fchmod(fd, mode)
	t := unix.NsecToTimespec(mtime)
	return [2]unix.Timespec{t, t}, mtime != 0
}

// version is the disk's version of it, from the store.
func (w *PathWrite) version(item *Item, pfd int) (*version, error) {
	it := item.pl
	m := meta{times: &[2]unix.Timespec{it.D.ATime, it.D.MTime}}
	m.uid, m.gid = w.ownerOf(it.Path, it)
	m.chown = m.uid >= 0 || m.gid >= 0
	if it.makesDir() {
		return &version{kind: tree.KindDir, meta: m}, nil
	}
	m.setMode, m.mode = true, modeOf(it)
	v := &version{kind: it.D.Kind, link: it.D.Link, meta: m}
	if it.D.Kind == tree.KindFile {
		v.xattrs = w.newXattrs(it, pfd)
		if it.F != nil && !it.Aside {
			v.flags = it.F.flags
		}
		v.links = w.linksOf(it)
		v.fill = func(out int) error { return w.writeObj(it, out) }
	}
	return v, nil
}

// writeObj copies the disk's file of it from the store into out (holes
// kept) and checks it against its hash.
func (w *PathWrite) writeObj(it *planItem, out int) error {
	in, ref, err := w.openObj(it.Src)
	if err != nil {
		return fmt.Errorf("open the store's copy: %w", err)
	}
	defer unix.Close(in)
	if _, err := tree.RestoreData(out, in, ref, *it.Src, false); err != nil {
		return err
	}
	if h, err := tree.HashFd(out); err != nil || h != it.DS.Hash {
		return fmt.Errorf("the store's copy does not match its hash (%v): %w", err, snapstore.ErrBadManifest)
	}
	return nil
}

// meta is the disk's metadata of it, set on the folder's entry in place
// (open as fd) where the disk changed it, or on a folder made for it.
func (w *PathWrite) meta(item *Item, fd int, made bool) meta {
	it := item.pl
	m := meta{times: &[2]unix.Timespec{it.D.ATime, it.D.MTime}}
	if made || it.Base == nil || it.DS.Mode != it.Base.Mode {
		m.setMode, m.mode = true, it.DS.Mode
	}
	if made {
		m.xattrs = it.D.Xattr
	} else if fd >= 0 {
		m.xattrs, m.drop = xattrsInPlace(it, fd)
	}
	if item.kind != tree.KindDir && it.Base != nil && it.Base.Meta && it.DS.MTime == it.Base.MTime {
		m.times = nil
	}
	return m
}

// gone: the disk lacks it's path, at a second look; while the disk is not
// still as its scan saw it, a path it lacks may have moved during the
// scan, so every deletion waits for a later write-back.
func (w *PathWrite) gone(item *Item) bool {
	if !w.asked {
		w.still, w.asked = w.diskfd >= 0 && diskStill(w.S, w.Disk, w.Id), true
	}
	if w.still && absent(w.diskfd, item.Path) {
		return true
	}
	item.failed = true // the record keeps the path pending
	w.wb.Postponed++
	return false
}

// before moves the folder's entry of it aside as a conflict copy where
// the plan says so, and reports its conflict.
func (w *PathWrite) before(item *Item, pfd int, name string) error {
	it := item.pl
	if it.Aside && it.F != nil {
		c, err := w.toFreeName(pfd, name, it.Path)
		if err != nil {
			return err
		}
		w.conflict(it.Path, c, it.Conflict)
		it.Conflict = ""
	}
	w.noteConflict(it)
	return nil
}

// done notes the folder's version of it now.
func (w *PathWrite) done(item *Item) {
	it := item.pl
	switch {
	case item.op == opPut, item.op == opOverDir:
		it.after = w.newSide(it)
	case item.kind == tree.KindDir && item.op == opMeta:
		it.after = &syncrec.Side{Kind: tree.KindDir, Mode: it.DS.Mode}
	case item.op == opMeta && item.now != nil:
		f := *it.F
		f.E.St = *item.now
		it.after = keptSide(&f)
	}
}

// raced keeps what changed in the folder meanwhile: the disk's new
// version becomes the conflict copy.
func (w *PathWrite) raced(item *Item, held bool) {
	it := item.pl
	switch {
	case item.op == opPut:
		c := w.toCopy(it, "changed in the folder while it was written back: the folder's version is kept under the name, the disk's is the copy")
		if c != "" && item.kind == tree.KindDir {
			dir, _ := tree.SplitRel(it.Path)
			_, cname := tree.SplitRel(c)
			w.a.tgt.moved(it.Path, dir, cname) // what it holds is part of the copy
		}
	case item.op == opOverDir && held:
		w.toCopy(it, "a file on the disk, a folder holding files in the folder: the folder keeps the name, the disk's version is the copy")
		it.after = keptSide(it.F)
	case item.op == opOverDir:
		w.toCopy(it, "appeared in the folder while it was written back: the folder's version is kept under the name, the disk's is the copy")
	case item.op == opRemove && held:
		it.after = keptSide(it.F) // it holds what the folder added: kept
		w.wb.KeptOutside++
	case item.op == opRemove && !it.F.isDir():
		w.conflict(it.Path, "", "deleted on the disk, changed in the folder while it was written back: the folder's version is kept")
	}
}

// fail gives up on one path: the folder keeps its version, the record
// keeps the path pending, and the save says why.
func (w *PathWrite) fail(item *Item, err error) {
	w.note(item.Path, fmt.Sprintf("the disk's version was not written (%v); it is in snapshot %s", err, w.Id))
}

// keep: the folder's version stays (or the disk's is its conflict copy).
func (w *PathWrite) keep(item *Item) {
	it := item.pl
	if item.op == opCopy {
		w.toCopy(it, it.Conflict)
		it.Conflict = ""
	}
	it.after = keptSide(it.F)
	w.noteConflict(it)
}

func (w *PathWrite) note(path, why string) { w.wb.NotKept = append(w.wb.NotKept, path+": "+why) }

// toCopy renames it's temporary file to a conflict copy of its path, and
// returns that path ("" when it could not).
func (w *PathWrite) toCopy(it *planItem, what string) string {
	dir, _ := tree.SplitRel(it.Path)
	pfd, err := w.a.tgt.at(dir)
	if err == nil && !w.a.ours(pfd, &it.Item) {
		err = errTaken
	}
	if err == nil {
		var c string
		if c, err = w.toFreeName(pfd, it.Tmp, it.Path); err == nil {
			w.conflict(it.Path, c, what)
			return c
		}
	}
	w.a.fail(&it.Item, err)
	return ""
}

// toFreeName renames from (in folder pfd) to the first free conflict
// copy name of rel (keeping its inode).
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

// noteConflict reports it's conflict that has no copy (one side's deletion).
func (w *PathWrite) noteConflict(it *planItem) {
	if it.Conflict != "" {
		w.conflict(it.Path, "", it.Conflict)
		it.Conflict = ""
	}
}

func (w *PathWrite) conflict(p, c, what string) {
	w.wb.Conflicts = append(w.wb.Conflicts, Conflict{Path: p, Copy: c, What: what})
}
