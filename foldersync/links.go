package foldersync

import (
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// Hard links at write-back: a name of a file of several names on the
// disk is made in the folder as a link to the folder's file of another of
// its names, when that holds the disk's bytes (written by this write-back,
// kept by it, or left as the last sync made it); else as a file of its own.

// linkable: it, a hard link to an earlier path, can be made as a link to
// the folder's copy of that path (which holds the disk's bytes after the
// write-back). A first name the write-back does not touch is linked to
// while it keeps the identity noted here (it.keptAt).
func (w *PathWrite) linkable(it *planItem) bool {
	q := w.byPath[it.D.HardLink]
	if q == nil {
		ident, ok := w.keptSince(it.D.HardLink, it)
		if ok {
			it.keptAt = &ident
		}
		return ok
	}
	if q.failed || q.DS == nil || q.DS.Kind != tree.KindFile {
		return false
	}
	if q.Act == writeDisk {
		return true
	}
	return q.Act != deletePath && q.F != nil && q.F.E.IsReg() && q.F.hash == q.DS.Hash
}

// keptName is, for it, a new first name of a file of several names on the
// disk, a later name of that file that the folder keeps as it is, holding
// the disk's bytes (nil: none): a link to it keeps the names one file in
// the folder, as on the disk (a name made before the names the file
// already had sorts first).
func (w *PathWrite) keptName(it *planItem) *planItem {
	if it.Act != writeDisk || it.D == nil || it.D.Kind != tree.KindFile || it.D.HardLink != "" {
		return nil
	}
	if w.seconds == nil {
		w.seconds = map[string][]*planItem{}
		for _, q := range w.Items {
			if q.D != nil && q.D.HardLink != "" {
				w.seconds[q.D.HardLink] = append(w.seconds[q.D.HardLink], q)
			}
		}
	}
	for _, q := range w.seconds[it.Path] {
		if !q.failed && q.Act == keepFolder && q.F != nil && q.F.E.IsReg() && q.DS != nil && q.F.hash == q.DS.Hash {
			return q
		}
	}
	return nil
}

// linkFirst makes it (a hard link) under its temporary name (or its name,
// when fresh) as a link to its first name's inode in the folder; where
// that cannot be (its first name was not written, or another user's file
// under protected_hardlinks), as a file of its own.
func (w *PathWrite) linkFirst(it *planItem, pfd int, name string) error {
	target := it.Tmp
	if it.fresh {
		target = name
	}
	if q := it.linkTo; q != nil {
		if w.linkKept(it, q.Path, pfd, target, func(st *unix.Stat_t) bool { return w.asPlanned(&q.F.E.St, st) }) {
			return nil
		}
	}
	q := it.D.HardLink
	if at := it.keptAt; at != nil && w.linkKept(it, q, pfd, target, func(st *unix.Stat_t) bool { return sameBytes(tree.IdentOf(st), *at) }) {
		return nil
	}
	if ino, ok := w.placed[q]; ok {
		qdir, qname := tree.SplitRel(q)
		if qfd, err := w.dirFd(qdir); err == nil && unix.Linkat(qfd, qname, pfd, target, 0) == nil {
			var st unix.Stat_t
			if unix.Fstatat(pfd, target, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && uint64(st.Ino) == ino {
				it.ino = ino
				return nil
			}
			unix.Unlinkat(pfd, target, 0)
		}
	}
	if err := w.makeNew(it, pfd, target); err != nil {
		if Refused(err) {
			w.fail(it, err)
			return nil
		}
		return err
	}
	return w.flush() // past the first flush: this file's bytes too
}

// keptSince reports whether the folder's file at path q, another name of
// it's file that this write-back does not touch, is still what the last
// sync left there holding the disk's bytes, and with what identity.
func (w *PathWrite) keptSince(q string, it *planItem) (tree.Ident, bool) {
	if w.Rec == nil || it.DS == nil {
		return tree.Ident{}, false
	}
	sp, err := w.Rec.Get(q)
	if err != nil || sp == nil || sp.Pending || sp.F == nil || sp.F.Ident == nil || sp.F.Kind != tree.KindFile || sp.F.Hash != it.DS.Hash {
		return tree.Ident{}, false
	}
	dir, name := tree.SplitRel(q)
	fd, err := w.dirFd(dir)
	if err != nil {
		return tree.Ident{}, false
	}
	var st unix.Stat_t
	if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || !sameBytes(tree.IdentOf(&st), *sp.F.Ident) {
		return tree.Ident{}, false // changed in the folder since
	}
	return *sp.F.Ident, true
}

// sameBytes reports whether a and b are one file holding the same bytes
// as far as its identity tells: not its ctime, which a link made to it or
// removed (by an earlier write-back too) moves.
func sameBytes(a, b tree.Ident) bool {
	return a.Ino == b.Ino && a.Size == b.Size && a.MTime == b.MTime && a.Mode == b.Mode
}

// linkKept makes target in pfd a link to the folder's file at q, another
// name of it's file that the folder keeps, while still (it says) that
// holds what was planned; false when it cannot (then it is written as a
// file).
func (w *PathWrite) linkKept(it *planItem, q string, pfd int, target string, still func(*unix.Stat_t) bool) bool {
	qdir, qname := tree.SplitRel(q)
	qfd, err := w.dirFd(qdir)
	if err != nil {
		return false
	}
	var st, made unix.Stat_t
	if unix.Fstatat(qfd, qname, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || !still(&st) {
		return false // changed in the folder meanwhile
	}
	if unix.Linkat(qfd, qname, pfd, target, 0) != nil {
		return false
	}
	if unix.Fstatat(pfd, target, &made, unix.AT_SYMLINK_NOFOLLOW) != nil || made.Ino != st.Ino {
		unix.Unlinkat(pfd, target, 0)
		return false
	}
	it.ino = uint64(made.Ino)
	return true
}
