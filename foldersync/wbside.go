package foldersync

import (
	"maps"
	"os"

	"rambar/ramdisk"
	"rambar/syncrec"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// The write-back's versions: the owner, mode and xattrs of a new version
// in the folder (the disk's, merged with what the folder changed itself),
// and the record's folder side of each path after.

// owner is the ownership given to paths the folder did not have: the
// invoking user under sudo or pkexec (ramdisk.Invoking), the folder's
// owner as root, unset otherwise.
type owner struct{ uid, gid int }

// newOwner decides the owner for new paths of a folder owned by uid:gid.
func newOwner(uid, gid uint32) owner {
	if os.Geteuid() != 0 {
		return owner{-1, -1}
	}
	if inv := ramdisk.Invoking(); inv.Behind { // the one rule: sudo, pkexec
		return owner{inv.UID, inv.GID}
	}
	return owner{int(uid), int(gid)}
}

// ownerOf is who a new version of path rel belongs to: the folder's
// entry's owner where it had one (as root: kept whatever it is), else the
// owner of new paths.
func (w *PathWrite) ownerOf(rel string, it *planItem) (int, int) {
	if it != nil && it.F != nil && !it.Aside {
		if os.Geteuid() == 0 {
			return int(it.F.E.St.Uid), int(it.F.E.St.Gid)
		}
		if int(it.F.E.St.Uid) != os.Geteuid() {
			w.note(rel, "owner not kept")
		}
	}
	return w.owner.uid, w.owner.gid
}

// modeOf is the permission bits it's new version gets: the disk's, unless
// only the folder changed them (a chmod in the folder stays).
func modeOf(it *planItem) uint32 {
	base, f, ds := it.Base, it.F.Side(), it.DS
	if f != nil && !it.Aside && base != nil && f.Kind == ds.Kind && ds.Kind == base.Kind && ds.Mode == base.Mode {
		return f.Mode
	}
	return ds.Mode
}

// newXattrs are the xattrs of a new version of it: those the folder's
// entry had (POSIX ACLs, security.* and trusted.* as root, user.*; read
// through pfd), less the ones the disk removed, then the disk's.
func (w *PathWrite) newXattrs(it *planItem, pfd int) map[string][]byte {
	vals := map[string][]byte{}
	if it.F != nil && it.F.E.IsReg() && !it.Aside {
		_, name := tree.SplitRel(it.Path)
		if old, err := tree.OpenFileAt(pfd, name, &it.F.E.St); err == nil {
			if x, _ := tree.FdXattrs(old); x != nil {
				vals = x
			}
			unix.Close(old)
		}
	}
	for _, k := range xattrsRemoved(it, vals) {
		delete(vals, k)
	}
	maps.Copy(vals, it.D.Xattr)
	return vals
}

// xattrsInPlace are the changes the disk made to it's xattrs since the
// record, for the folder's own entry (open as fd): what the disk added or
// changed is set, what it removed is removed where the folder still has
// the record's value. The folder's other xattrs stay.
func xattrsInPlace(it *planItem, fd int) (set map[string][]byte, drop []string) {
	folder, _ := tree.FdXattrs(fd)
	drop = xattrsRemoved(it, folder)
	base := map[string]uint64{}
	if it.Base != nil {
		for _, x := range it.Base.Xattrs {
			base[x.Name] = x.Sum
		}
	}
	set = map[string][]byte{}
	for k, v := range it.D.Xattr {
		if s, ok := base[k]; !ok || s != syncrec.ValueSum(v) || !it.Base.Meta {
			set[k] = v // changed on the disk (an unchanged one: the folder's value stays)
		}
	}
	return set, drop
}

// xattrsRemoved are the content xattrs the disk had at the record and has
// no more, of those have (a folder entry's) still holds with the record's
// value.
func xattrsRemoved(it *planItem, have map[string][]byte) []string {
	if it.Base == nil || !it.Base.Meta {
		return nil
	}
	var out []string
	for _, x := range it.Base.Xattrs {
		_, still := it.D.Xattr[x.Name]
		if v, ok := have[x.Name]; ok && !still && syncrec.ValueSum(v) == x.Sum && tree.XattrIsContent(x.Name) {
			out = append(out, x.Name)
		}
	}
	return out
}

// newSide is the record's folder side of the new version of it:
// its identity now, if it is still the inode the write-back made.
func (w *PathWrite) newSide(it *planItem) *syncrec.Side {
	s := &syncrec.Side{Kind: it.DS.Kind, Mode: modeOf(it), Hash: it.DS.Hash}
	dir, name := tree.SplitRel(it.Path)
	pfd, err := w.a.tgt.at(dir)
	if err != nil || it.DS.Kind == tree.KindDir {
		return s
	}
	var st unix.Stat_t
	if unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && uint64(st.Ino) == it.ino && st.Mode&unix.S_IFMT == unix.S_IFREG {
		s.Ident = new(tree.IdentOf(&st))
	}
	return s
}

// keptSide is the record's folder side of an entry the folder keeps.
func keptSide(f *fstate) *syncrec.Side {
	s := f.Side()
	if s != nil && f.E.IsReg() && !f.hash.None() && f.hash != unknownHash {
		s.Ident = new(tree.IdentOf(&f.E.St))
	}
	return s
}

// entry is the record's new entry for it.
func (it *planItem) entry() syncrec.Path {
	if it.failed {
		return syncrec.Path{Path: it.Path, F: it.LastF, D: it.Base, Pending: true, Gone: it.D == nil}
	}
	f := it.after
	if it.op == opNone && it.F != nil && it.F.Side().Differs(it.DS) {
		// The folder keeps a version the disk lacks: the record keeps its
		// folder side as it was, so the change still counts as one kept in
		// the folder (FolderChanges) and a refresh takes it. (A path the
		// folder deleted has no folder side: a refresh knows it by that.)
		f = it.LastF
	}
	return syncrec.Path{Path: it.Path, F: f, D: it.DS}
}
