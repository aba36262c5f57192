package foldersync

import (
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// Hard links at write-back: a name of a file of several names on the
// disk is made in the folder as a link to the folder's file of another of
// its names, when that holds the disk's bytes (made by this write-back,
// kept by it, or left as the last sync made it); else as a file of its own.

// linksOf are the names of the folder it's new file can be made a hard
// link of: a later name of it the folder keeps as it is (it is a new
// first name), or its first name: as the last sync left it (a name the
// write-back does not touch), its new version, or the folder's file kept
// with the disk's bytes.
func (w *PathWrite) linksOf(it *planItem) []linkFrom {
	var out []linkFrom
	if q := w.keptName(it); q != nil {
		out = append(out, w.keptLink(q))
	}
	if it.D.HardLink == "" {
		return out
	}
	dir, name := tree.SplitRel(it.D.HardLink)
	q := w.byPath[it.D.HardLink]
	switch {
	case q == nil:
		if id, ok := w.keptSince(it.D.HardLink, it); ok {
			out = append(out, linkFrom{dir, name, func(st *unix.Stat_t) bool { return sameBytes(tree.IdentOf(st), id) }})
		}
	case q.failed || q.DS == nil || q.DS.Kind != tree.KindFile:
	case (q.op == opPut || q.op == opOverDir) && q.ino != 0:
		if !q.fresh {
			name = q.Tmp
		}
		out = append(out, linkFrom{dir, name, func(st *unix.Stat_t) bool { return uint64(st.Ino) == q.ino }})
	case q.op != opRemove && q.F != nil && q.F.E.IsReg() && q.F.hash == q.DS.Hash:
		out = append(out, w.keptLink(q))
	}
	return out
}

// keptLink links to q, a file the folder keeps holding the disk's bytes,
// while it is as the plan saw it.
func (w *PathWrite) keptLink(q *planItem) linkFrom {
	dir, name := tree.SplitRel(q.Path)
	return linkFrom{dir, name, func(st *unix.Stat_t) bool { return w.a.still(&q.F.E.St, st) }}
}

// keptName is, for it, a new first name of a file of several names on the
// disk, a later name of that file that the folder keeps as it is, holding
// the disk's bytes (nil: none): a link to it keeps the names one file in
// the folder, as on the disk (a name made before the names the file
// already had sorts first).
func (w *PathWrite) keptName(it *planItem) *planItem {
	if it.op != opPut && it.op != opOverDir || it.D.HardLink != "" {
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
		if !q.failed && q.op == opNone && q.F != nil && q.F.E.IsReg() && q.DS != nil && q.F.hash == q.DS.Hash {
			return q
		}
	}
	return nil
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
	fd, err := w.a.tgt.at(dir)
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
