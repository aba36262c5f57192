package keeper

import (
	"rambar/foldersync"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// A refresh makes the hard links of the folder links on the disk, as the
// load does: a new or changed name of a folder file with several names is
// linked to the disk's copy of another of its names, one the refresh made,
// found the same on the disk, or one the folder did not change.

// linked notes where the disk has the bytes of it's folder file when the
// folder has other names for it (hard links are made as links).
func (r *refresher) linked(it *ritem, at foldersync.TempAt) {
	if it.e == nil || !it.e.IsReg() || it.e.St.Nlink < 2 {
		return
	}
	if k := inodeOf(it.e); r.links[k].Name == "" {
		r.links[k] = at
	}
}

// inodeOf is a folder entry's inode, as hard links are told apart.
func inodeOf(e *tree.FsEntry) [2]uint64 { return [2]uint64{uint64(e.St.Dev), uint64(e.St.Ino)} }

// linkSourceOf is where the disk has the bytes of it, a new or changed
// name of a folder file with several names: a name of it the refresh
// made or found the same on the disk, or one the folder did not change
// whose disk version is the record's, with these bytes; ok false: none.
func (r *refresher) linkSourceOf(it *ritem) (foldersync.TempAt, bool) {
	k := inodeOf(it.e)
	if at := r.links[k]; at.Name != "" {
		return at, true
	}
	f, ok := r.firsts[k]
	if !ok || f.pending || f.d == nil || f.d.Kind != tree.KindFile || f.d.Hash != it.fs.Hash {
		return foldersync.TempAt{}, false
	}
	dir, name := tree.SplitRel(f.path)
	pfd, err := r.diskDir(dir)
	id, indexed := r.idx[f.path]
	var st unix.Stat_t
	if err != nil || !indexed || unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || !stillIndexed(f.path, &st, id) {
		return foldersync.TempAt{}, false
	}
	r.links[k] = foldersync.TempAt{Dir: dir, Name: name}
	return r.links[k], true
}
