package foldersync

import (
	"rambar/syncrec"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// The write-back plan: which version each path the disk changed gets in
// the folder. Every other path is the folder's, untouched and unread.
//
// For every path the record (the last load or write-back) says what the
// disk had then (base). The folder and the disk are each compared with
// base by content:
//
//   - the disk did not change the content: the folder keeps what it has
//     (an outside edit, addition or deletion stays as it is); where the
//     disk changed only metadata (mode, times, xattrs: chmod, touch,
//     setfattr) and the folder still holds base, that metadata is set on
//     the folder's entry in place;
//   - the disk changed it and the folder still holds base: the disk's
//     version (or its deletion) is written;
//   - both changed it to different contents: a conflict. Both are kept:
//     the disk's version under the name and the folder's beside it as a
//     conflict copy (a folder always keeps its name: a file or link the
//     disk made there is the copy then); a deletion on one side against an
//     edit on the other keeps the edit;
//   - the folder's file is immutable or append-only (chattr +i/+a, chflags
//     uchg/uappnd): it and its flags are left as they are, and the disk's
//     version is the conflict copy.
//
// Comparing with the disk's base rather than with the folder's last
// version means an outside edit the disk never took is never overwritten
// by a later disk edit without a conflict copy.

// fstate is a folder path as the write-back found it: its lstat, content
// hash (files and links) and protection flags.
type fstate struct {
	E     tree.FsEntry
	hash  tree.FileSum
	flags tree.FileFlags
}

// Side is what the record would keep of the folder's path (nil: none).
func (f *fstate) Side() *syncrec.Side {
	if f == nil {
		return nil
	}
	s := &syncrec.Side{Kind: f.E.Kind(), Mode: uint32(f.E.St.Mode) & 0o7777, Hash: f.hash}
	switch {
	case f.E.St.Mode&unix.S_IFMT == unix.S_IFIFO:
		s.Kind, s.Hash = tree.KindFIFO, tree.FileSum{}
	case !f.E.IsReg() && !f.E.IsDir() && !f.E.IsLink():
		s.Kind, s.Hash = 0, syncrec.SpecialHash(uint32(f.E.St.Mode)) // sockets, devices: never the disk's
	}
	return s
}

func (f *fstate) isDir() bool { return f != nil && f.E.IsDir() }

// planItem is one path the write-back looks at, and what it does there
// (the applier's Item: its op, temporary name, what became of it): the
// folder's version stays (opNone), the disk's metadata is set on it in
// place (opMeta), the disk's version goes under the name (opPut, opOverDir
// over a folder), the folder's entry goes (opRemove, after a second look at
// the disk), or the disk's version is a conflict copy and the folder keeps
// the name (opCopy).
type planItem struct {
	Item
	D     *tree.Entry   // the disk's entry; nil: the disk lacks the path
	Src   *tree.Entry   // the entry whose object holds D's bytes (a hard link's first name)
	DS    *syncrec.Side // its side, with its content hash
	F     *fstate
	Base  *syncrec.Side // the record's disk side: what both started from
	LastF *syncrec.Side // the record's folder side
	// Aside: before the disk's version is written, the folder's entry
	// moves to a conflict copy (keeping its inode and metadata).
	Aside bool
	// Conflict says what was kept where ("" when nothing conflicts).
	Conflict string
	// Outside: the folder changed the path outside RAMBar and keeps it;
	// DeletedOutside: the folder deleted it while the disk kept it.
	Outside, DeletedOutside bool

	after *syncrec.Side // the folder's version after (nil: unknown, read again next time)
}

// decide sets it's action from its three versions.
func (it *planItem) decide() {
	base, f, ds := it.Base, it.F, it.DS
	fs := f.Side()
	fDiff, dDiff := !fs.SameContent(base), !ds.SameContent(base)
	switch {
	case it.Path == ".":
		if f.isDir() && ds != nil && ds.Kind == tree.KindDir {
			it.op = opMeta // the top folder is never replaced; its metadata follows the disk's
		}
	case !dDiff:
		if ds != nil && f != nil && !fDiff && syncrec.MetaChanged(base, ds) {
			it.op = opMeta
		}
		it.DeletedOutside = f == nil && it.LastF != nil && ds != nil
		it.Outside = f != nil && fDiff || it.DeletedOutside
	case !fDiff:
		if ds != nil {
			it.op = opPut
		} else if f != nil {
			it.op = opRemove
		}
	case ds.SameContent(fs):
		if ds != nil && ds.Kind == tree.KindDir {
			it.op = opMeta // both made the folder
		}
	case ds == nil:
		it.Conflict = "deleted on the disk, changed in the folder: the folder's version is kept"
	case f == nil:
		it.op = opPut
		it.Conflict = "deleted in the folder, changed on the disk: the disk's version is written back"
	case f.isDir():
		it.op = opCopy
		it.Conflict = "changed on both sides: the folder's version is kept under the name, the disk's is the copy"
	case ds.Kind == tree.KindDir:
		it.op, it.Aside = opPut, true
		it.Conflict = "a folder on the disk, a file in the folder: the folder keeps the name, the folder's file is the copy"
	default:
		it.op, it.Aside = opPut, true
		it.Conflict = "changed on both sides: the disk's version is under the name, the folder's is the copy"
	}
	it.protect()
	it.gitRule()
	if it.op == opPut && it.DS.Kind != tree.KindDir && it.F.isDir() && !it.Aside {
		it.op = opOverDir // once the deletions emptied the folder
	}
	it.pl = it
	if it.DS != nil {
		it.kind = it.DS.Kind
	}
	if it.F != nil && !it.Aside {
		it.was = &it.F.E.St
	}
}

// protect keeps an immutable or append-only folder entry as it is.
func (it *planItem) protect() {
	if it.F == nil {
		return
	}
	flag := it.F.flags.Protection()
	if flag == "" {
		return
	}
	switch it.op {
	case opPut:
		if it.F.isDir() && it.DS.Kind == tree.KindDir {
			return // a folder's contents are written, not the folder
		}
		it.op, it.Aside = opCopy, false
		it.Conflict = "the folder's version is " + flag + ": it was left as it is, with its flags; the disk's version is the copy"
	case opRemove:
		it.op = opNone
		it.Conflict = "deleted on the disk, but the folder's version is " + flag + ": it was kept, with its flags"
	case opMeta:
		if it.F.isDir() {
			return
		}
		it.op = opNone
		it.Conflict = "its metadata changed on the disk, but the folder's version is " + flag + ": it was left as it is"
	}
}

// makesDir: the item makes a folder (the disk's) at its path.
func (it *planItem) makesDir() bool {
	return it.op == opPut && it.DS.Kind == tree.KindDir && !it.F.isDir()
}
