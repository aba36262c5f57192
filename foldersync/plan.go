package foldersync

import (
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

// action is what a write-back does to one path of the folder.
type action uint8

const (
	keepFolder action = iota // nothing: the folder's version stays
	setMeta                  // the disk's metadata on the folder's entry, in place
	writeDisk                // the disk's version under the name
	deletePath               // the folder's entry goes (after a second look at the disk)
	diskCopy                 // the disk's version as a conflict copy; the folder keeps the name
)

// Fstate is a folder path as the write-back found it: its lstat, content
// hash (files and links) and protection flags.
type Fstate struct {
	E     tree.FsEntry
	hash  tree.FileSum
	flags tree.FileFlags
}

// Side is what the record would keep of the folder's path (nil: none).
func (f *Fstate) Side() *Side {
	if f == nil {
		return nil
	}
	s := &Side{Kind: f.E.Kind(), Mode: uint32(f.E.St.Mode) & 0o7777, Hash: f.hash}
	switch {
	case f.E.St.Mode&unix.S_IFMT == unix.S_IFIFO:
		s.Kind, s.Hash = tree.KindFIFO, tree.FileSum{}
	case !f.E.IsReg() && !f.E.IsDir() && !f.E.IsLink():
		s.Kind, s.Hash = 0, specialHash(uint32(f.E.St.Mode)) // sockets, devices: never the disk's
	}
	return s
}

func (f *Fstate) isDir() bool { return f != nil && f.E.IsDir() }

// protection names the flag that keeps the write-back off f ("" none).
func (f *Fstate) protection() string {
	if f == nil {
		return ""
	}
	return f.flags.Protection()
}

// planItem is one path the write-back looks at, and what it does there.
type planItem struct {
	Path  string
	D     *tree.Entry // the disk's entry; nil: the disk lacks the path
	Src   *tree.Entry // the entry whose object holds D's bytes (a hard link's first name)
	DS    *Side       // its side, with its content hash
	F     *Fstate
	Base  *Side // the record's disk side: what both started from
	LastF *Side // the record's folder side
	Act   action
	// Aside: before the disk's version is written, the folder's entry
	// moves to a conflict copy (keeping its inode and metadata).
	Aside bool
	// Conflict says what was kept where ("" when nothing conflicts).
	Conflict string
	// Outside: the folder changed the path outside RAMBar and keeps it;
	// DeletedOutside: the folder deleted it while the disk kept it.
	Outside, DeletedOutside bool

	// What the write-back did (place.go): the temporary name and the
	// inode made there, made straight under the name inside a folder the
	// write-back made (fresh), as a hard link to its first name (link);
	// given up (failed: the record keeps the path pending) or postponed
	// (a deletion while the disk was in use); the folder's version after.
	// linkTo, for a new first name of a file, is a later name of it that
	// the folder keeps as it is: the new name is made a link to it.
	// keptAt, for a later name whose first name the write-back does not
	// touch, is that name's identity as the last sync left it (linkable).
	Tmp                            string
	ino                            uint64
	fresh, link, failed, postponed bool
	linkTo                         *planItem
	keptAt                         *tree.Ident
	after                          *Side
}

// decide sets it's action from its three versions.
func (it *planItem) decide() {
	base, f, ds := it.Base, it.F, it.DS
	fs := f.Side()
	fDiff, dDiff := !fs.SameContent(base), !ds.SameContent(base)
	switch {
	case it.Path == ".":
		if f.isDir() && ds != nil && ds.Kind == tree.KindDir {
			it.Act = setMeta // the top folder is never replaced; its metadata follows the disk's
		}
	case !dDiff:
		if ds != nil && f != nil && !fDiff && metaChanged(base, ds) {
			it.Act = setMeta
		}
		it.Outside = f != nil && fDiff
		it.DeletedOutside = f == nil && it.LastF != nil && ds != nil
		it.Outside = it.Outside || it.DeletedOutside
	case !fDiff:
		if ds != nil {
			it.Act = writeDisk
		} else if f != nil {
			it.Act = deletePath
		}
	case ds.SameContent(fs):
		if ds != nil && ds.Kind == tree.KindDir {
			it.Act = setMeta // both made the folder
		}
	case ds == nil:
		it.Conflict = "deleted on the disk, changed in the folder: the folder's version is kept"
	case f == nil:
		it.Act = writeDisk
		it.Conflict = "deleted in the folder, changed on the disk: the disk's version is written back"
	case f.isDir():
		it.Act = diskCopy
		it.Conflict = "changed on both sides: the folder's version is kept under the name, the disk's is the copy"
	case ds.Kind == tree.KindDir:
		it.Act, it.Aside = writeDisk, true
		it.Conflict = "a folder on the disk, a file in the folder: the folder keeps the name, the folder's file is the copy"
	default:
		it.Act, it.Aside = writeDisk, true
		it.Conflict = "changed on both sides: the disk's version is under the name, the folder's is the copy"
	}
	it.protect()
	it.gitRule()
}

// protect keeps an immutable or append-only folder entry as it is.
func (it *planItem) protect() {
	flag := it.F.protection()
	if flag == "" {
		return
	}
	switch it.Act {
	case writeDisk:
		if it.F.isDir() && it.DS.Kind == tree.KindDir {
			return // a folder's contents are written, not the folder
		}
		it.Act, it.Aside = diskCopy, false
		it.Conflict = "the folder's version is " + flag + ": it was left as it is, with its flags; the disk's version is the copy"
	case deletePath:
		it.Act = keepFolder
		it.Conflict = "deleted on the disk, but the folder's version is " + flag + ": it was kept, with its flags"
	case setMeta:
		if it.F.isDir() {
			return
		}
		it.Act = keepFolder
		it.Conflict = "its metadata changed on the disk, but the folder's version is " + flag + ": it was left as it is"
	}
}

// makesDir: the item makes a folder (the disk's) at its path.
func (it *planItem) makesDir() bool {
	return it.Act == writeDisk && it.DS.Kind == tree.KindDir && !it.F.isDir()
}

// replacesDir: the item puts a non-folder where the folder has a folder,
// once the folder is emptied by the deletions (it is placed after them).
func (it *planItem) replacesDir() bool {
	return it.Act == writeDisk && it.DS.Kind != tree.KindDir && it.F.isDir() && !it.Aside
}
