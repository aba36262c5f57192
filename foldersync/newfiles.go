package foldersync

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// owner is the ownership given to paths the folder did not have: the
// invoking user under sudo, the folder's owner as root, unset otherwise.
type owner struct{ uid, gid int }

// newOwner decides the owner for new paths of a folder owned by uid:gid.
func newOwner(uid, gid uint32) owner {
	if os.Geteuid() != 0 {
		return owner{-1, -1}
	}
	if u, err := strconv.Atoi(os.Getenv("SUDO_UID")); err == nil && u > 0 {
		g, err := strconv.Atoi(os.Getenv("SUDO_GID"))
		if err != nil {
			g = -1
		}
		return owner{u, g}
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
			w.wb.NotKept = append(w.wb.NotKept, "owner of "+rel)
		}
	}
	return w.owner.uid, w.owner.gid
}

func (w *PathWrite) chownFd(fd int, rel string, it *planItem) {
	if u, g := w.ownerOf(rel, it); u >= 0 || g >= 0 {
		if err := unix.Fchown(fd, u, g); err != nil {
			w.wb.NotKept = append(w.wb.NotKept, "owner of "+rel)
		}
	}
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

// makeNew writes the disk's file, symlink or FIFO of it under target in
// the folder pfd, with its metadata.
func (w *PathWrite) makeNew(it *planItem, pfd int, target string) error {
	var err error
	switch it.D.Kind {
	case tree.KindFile:
		return w.writeFile(it, pfd, target)
	case tree.KindSymlink:
		if err = unix.Symlinkat(it.D.Link, pfd, target); err != nil {
			return err
		}
		if u, g := w.ownerOf(it.Path, it); u >= 0 || g >= 0 {
			unix.Fchownat(pfd, target, u, g, unix.AT_SYMLINK_NOFOLLOW)
		}
	case tree.KindFIFO:
		if err = tree.MkfifoIn(pfd, target); errors.Is(err, errors.ErrUnsupported) {
			w.fail(it, fmt.Errorf("a FIFO: %w", err))
			return nil
		}
		if err != nil {
			return err
		}
		if u, g := w.ownerOf(it.Path, it); u >= 0 || g >= 0 {
			unix.Fchownat(pfd, target, u, g, unix.AT_SYMLINK_NOFOLLOW)
		}
		if err = unix.Fchmodat(pfd, target, modeOf(it), 0); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown kind %d", it.D.Kind)
	}
	w.setTimesAt(pfd, target, it.D)
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, target, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	it.ino = uint64(st.Ino)
	return nil
}

// writeFile copies the disk's file of it from the store to target (holes
// kept), checks it against its hash, and sets owner, xattrs, mode (after
// the owner: a chown clears setuid), flags and times on it.
func (w *PathWrite) writeFile(it *planItem, pfd int, target string) error {
	in, ref, err := w.openObj(it.Src)
	if err != nil {
		return fmt.Errorf("open the store's copy: %w", err)
	}
	defer unix.Close(in)
	out, err := unix.Openat(pfd, target, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	defer unix.Close(out)
	var st unix.Stat_t
	unix.Fstat(out, &st)
	it.ino = uint64(st.Ino) // from here undo removes it
	if _, err := tree.RestoreData(out, in, ref, *it.Src, false); err != nil {
		return err
	}
	if h, err := tree.HashFd(out); err != nil || h != it.DS.Hash {
		return fmt.Errorf("the store's copy does not match its hash (%v): %w", err, snapstore.ErrBadManifest)
	}
	w.chownFd(out, it.Path, it)
	w.newXattrs(it, pfd, out)
	if err := unix.Fchmod(out, modeOf(it)); err != nil {
		return err
	}
	if it.F != nil && !it.Aside {
		tree.PassFlags(out, it.F.flags)
	}
	if err := tree.FileFlush(out); err != nil {
		return err
	}
	w.setTimesAt(pfd, target, it.D)
	w.Files++
	return nil
}

// setTimesAt gives name in pfd e's access and modification times (a
// symlink itself, not what it points to).
func (w *PathWrite) setTimesAt(pfd int, name string, e *tree.Entry) {
	ts := []unix.Timespec{e.ATime, e.MTime}
	if err := unix.UtimesNanoAt(pfd, name, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		w.wb.NotKept = append(w.wb.NotKept, "times of "+e.Path)
	}
}

// newXattrs sets the xattrs of a new version of it (open as out): those
// the folder's entry had (POSIX ACLs, security.* and trusted.* as root,
// user.*), less the ones the disk removed, then the disk's.
func (w *PathWrite) newXattrs(it *planItem, pfd, out int) {
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
	for _, x := range xattrsRemoved(it) {
		if v, ok := vals[x.Name]; ok && valueSum(v) == x.Sum {
			delete(vals, x.Name)
		}
	}
	for k, v := range it.D.Xattr {
		vals[k] = v
	}
	for _, k := range tree.SortedKeys(vals) {
		if err := unix.Fsetxattr(out, k, vals[k], 0); err != nil {
			w.wb.NotKept = append(w.wb.NotKept, fmt.Sprintf("xattr %s of %s (%v)", k, it.Path, err))
		}
	}
}

// xattrsInPlace makes the changes the disk made to it's xattrs since the
// record on the folder's own entry (open as fd): what the disk added or
// changed is set, what it removed is removed where the folder still has
// the record's value. The folder's other xattrs stay.
func (w *PathWrite) xattrsInPlace(it *planItem, fd int) {
	folder, _ := tree.FdXattrs(fd)
	for _, x := range xattrsRemoved(it) {
		if v, ok := folder[x.Name]; ok && valueSum(v) == x.Sum {
			if err := unix.Fremovexattr(fd, x.Name); err != nil {
				w.wb.NotKept = append(w.wb.NotKept, fmt.Sprintf("xattr %s of %s not removed (%v)", x.Name, it.Path, err))
			}
		}
	}
	base := map[string]uint64{}
	if it.Base != nil {
		for _, x := range it.Base.Xattrs {
			base[x.Name] = x.Sum
		}
	}
	for _, k := range tree.SortedKeys(it.D.Xattr) {
		v := it.D.Xattr[k]
		if s, ok := base[k]; ok && s == valueSum(v) && it.Base.Meta {
			continue // unchanged on the disk: the folder's value stays
		}
		if string(folder[k]) == string(v) {
			continue
		}
		if err := unix.Fsetxattr(fd, k, v, 0); err != nil {
			w.wb.NotKept = append(w.wb.NotKept, fmt.Sprintf("xattr %s of %s (%v)", k, it.Path, err))
		}
	}
}

// xattrsRemoved are the xattrs the disk had at the record and has no more.
func xattrsRemoved(it *planItem) []xattrSum {
	if it.Base == nil || !it.Base.Meta {
		return nil
	}
	var out []xattrSum
	for _, x := range it.Base.Xattrs {
		if _, still := it.D.Xattr[x.Name]; !still && tree.XattrIsContent(x.Name) {
			out = append(out, x)
		}
	}
	return out
}

// setMetaAt sets the disk's changed metadata on the folder's own file,
// link or FIFO it, in place: its bytes and inode stay.
func (w *PathWrite) setMetaAt(it *planItem) {
	dir, name := tree.SplitRel(it.Path)
	pfd, err := w.dirFd(dir)
	if err != nil {
		return
	}
	if !it.F.E.IsLink() {
		fd, err := unix.Openat(pfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			w.fail(it, err)
			return
		}
		defer unix.Close(fd)
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || !w.asPlanned(&it.F.E.St, &st) {
			it.after = nil // changed meanwhile: read again next time
			return
		}
		if it.Base == nil || it.DS.Mode != it.Base.Mode {
			if err := unix.Fchmod(fd, it.DS.Mode); err != nil {
				w.fail(it, err)
				return
			}
		}
		w.xattrsInPlace(it, fd)
	}
	if it.Base == nil || !it.Base.Meta || it.DS.MTime != it.Base.MTime {
		w.setTimesAt(pfd, name, it.D)
	}
	var st unix.Stat_t
	if unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Ino == it.F.E.St.Ino {
		f := *it.F
		f.E.St = st
		it.after = keptSide(&f)
		if st.Nlink > 1 {
			w.metaSet[st.Ino] = st // its other names changed with it
		}
	}
}

// asPlanned reports whether the folder's file now is still the one the
// plan saw (planned): the same, or, for a file of several names whose
// metadata this write-back set through another name, as that left it.
func (w *PathWrite) asPlanned(planned, now *unix.Stat_t) bool {
	if SameFile(planned, now) {
		return true
	}
	set, ok := w.metaSet[now.Ino]
	return ok && now.Ino == planned.Ino && SameFile(&set, now)
}

// dirMeta gives a folder the disk made or changed its mode, xattrs and
// times, once its contents are in.
func (w *PathWrite) dirMeta(it *planItem) {
	fd, err := w.dirFd(it.Path)
	if err != nil {
		return
	}
	made := it.makesDir()
	if made || it.Base == nil || it.DS.Mode != it.Base.Mode {
		if err := unix.Fchmod(fd, it.DS.Mode); err != nil {
			w.wb.NotKept = append(w.wb.NotKept, fmt.Sprintf("mode of %s (%v)", it.Path, err))
		}
	}
	if made {
		for _, k := range tree.SortedKeys(it.D.Xattr) {
			if err := unix.Fsetxattr(fd, k, it.D.Xattr[k], 0); err != nil {
				w.wb.NotKept = append(w.wb.NotKept, fmt.Sprintf("xattr %s of %s (%v)", k, it.Path, err))
			}
		}
	} else {
		w.xattrsInPlace(it, fd)
	}
	ts := []unix.Timespec{it.D.ATime, it.D.MTime}
	if err := unix.UtimesNanoAt(fd, ".", ts, 0); err != nil {
		w.wb.NotKept = append(w.wb.NotKept, "times of "+it.Path)
	}
	if it.after == nil || made {
		it.after = &Side{Kind: tree.KindDir, Mode: it.DS.Mode}
	}
}

// madeMeta gives a folder made for a path inside it (the folder had
// deleted it) its final mode, and the disk's time where it is known.
func (w *PathWrite) madeMeta(rel string) {
	fd, err := w.dirFd(rel)
	if err != nil {
		return
	}
	mode, mtime := w.dirMode(rel)
	unix.Fchmod(fd, mode)
	if mtime != 0 {
		ts := []unix.Timespec{unix.NsecToTimespec(mtime), unix.NsecToTimespec(mtime)}
		unix.UtimesNanoAt(fd, ".", ts, 0)
	}
	delete(w.touched, rel)
}

// newSide is the record's folder side of the new version of it at rel:
// its identity now, if it is still the inode the write-back made.
func (w *PathWrite) newSide(it *planItem, rel string) *Side {
	s := &Side{Kind: it.DS.Kind, Mode: modeOf(it), Hash: it.DS.Hash}
	dir, name := tree.SplitRel(rel)
	pfd, err := w.dirFd(dir)
	if err != nil || it.DS.Kind == tree.KindDir {
		return s
	}
	var st unix.Stat_t
	if unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && uint64(st.Ino) == it.ino && st.Mode&unix.S_IFMT == unix.S_IFREG {
		id := tree.IdentOf(&st)
		s.Ident = &id
	}
	return s
}

// keptSide is the record's folder side of an entry the folder keeps.
func keptSide(f *Fstate) *Side {
	s := f.Side()
	if s != nil && f.E.IsReg() && !f.hash.None() && f.hash != unknownHash {
		id := tree.IdentOf(&f.E.St)
		s.Ident = &id
	}
	return s
}

// entry is the record's new entry for it.
func (it *planItem) entry() SyncPath {
	if it.failed {
		sp := SyncPath{Path: it.Path, F: it.LastF, D: it.Base, Pending: true, Gone: it.D == nil}
		return sp
	}
	f := it.after
	if it.Act == keepFolder && it.F != nil && it.F.differs(it.DS) {
		// The folder keeps a version the disk lacks: the record keeps its
		// folder side as it was, so the change still counts as one kept in
		// the folder (FolderChanges) and a refresh takes it. (A path the
		// folder deleted has no folder side: a refresh knows it by that.)
		f = it.LastF
	}
	return SyncPath{Path: it.Path, F: f, D: it.DS}
}

// differs: the folder's entry f holds other content, or another mode, than
// the disk's side d.
func (f *Fstate) differs(d *Side) bool {
	fs := f.Side()
	if !fs.SameContent(d) {
		return true
	}
	return fs != nil && fs.Kind != tree.KindSymlink && fs.Kind != tree.KindDir && fs.Mode != d.Mode
}
