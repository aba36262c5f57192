package keeper

import (
	"fmt"
	"os"

	"rambar/foldersync"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// meta sets the folder's metadata (owner as root, mode, xattrs, times) on
// the disk's file, link or FIFO it, whose bytes are the folder's already,
// in place.
func (r *refresher) meta(it *ritem) {
	dir, name := tree.SplitRel(it.path)
	pfd, err := r.diskDir(dir)
	if err != nil || !r.unchanged(pfd, name, it) {
		r.leave(it)
		return
	}
	e, changed := it.e, false
	root := os.Geteuid() == 0
	if e.IsLink() {
		if root && (it.dst.Uid != e.St.Uid || it.dst.Gid != e.St.Gid) {
			changed = unix.Fchownat(pfd, name, int(e.St.Uid), int(e.St.Gid), unix.AT_SYMLINK_NOFOLLOW) == nil
		}
	} else {
		fd, err := unix.Openat(pfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != nil {
			r.give(it, err)
			return
		}
		defer unix.Close(fd)
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || st.Ino != it.dst.Ino {
			r.leave(it)
			return
		}
		if root && (st.Uid != e.St.Uid || st.Gid != e.St.Gid) {
			changed = unix.Fchown(fd, int(e.St.Uid), int(e.St.Gid)) == nil || changed
		}
		if st.Mode&0o7777 != e.St.Mode&0o7777 || changed {
			if err := unix.Fchmod(fd, uint32(e.St.Mode)&0o7777); err != nil {
				r.give(it, err)
				return
			}
			changed = true
		}
		changed = r.syncXattrs(it, fd) || changed
	}
	if tree.TsNano(tree.StatMtime(&it.dst)) != tree.TsNano(tree.StatMtime(&e.St)) {
		foldersync.SetTimesAt(pfd, name, &e.St)
		changed = true
	}
	it.done = true
	if changed {
		r.out.Taken++
	}
}

// syncXattrs makes the xattrs of the disk's entry fd the folder's (those
// that are contents; never RAMBar's mark on the disk's root), and reports
// whether it changed any.
func (r *refresher) syncXattrs(it *ritem, fd int) bool {
	var want map[string][]byte
	dir, name := tree.SplitRel(it.path)
	if it.path == "." {
		want, _ = tree.FdXattrs(r.rootfd)
	} else if pfd, err := r.folderDir(dir); err == nil {
		var in int
		if it.isDir() {
			in, err = tree.OpenDirAt(pfd, name)
		} else {
			in, err = tree.OpenFileAt(pfd, name, &it.e.St)
		}
		if err != nil {
			return false
		}
		want, _ = tree.FdXattrs(in)
		unix.Close(in)
	}
	have, _ := tree.FdXattrs(fd)
	tree.DropMarkAttrs(want)
	tree.DropMarkAttrs(have)
	changed := false
	for _, k := range tree.SortedKeys(want) {
		if !tree.XattrIsContent(k) || string(have[k]) == string(want[k]) {
			continue
		}
		if err := unix.Fsetxattr(fd, k, want[k], 0); err != nil {
			r.out.NotKept = append(r.out.NotKept, tree.NotKept{Path: it.path, Why: fmt.Sprintf("xattr %s not set on the disk: %v", k, err)})
			continue
		}
		changed = true
	}
	for _, k := range tree.SortedKeys(have) {
		if _, ok := want[k]; !ok && tree.XattrIsContent(k) && unix.Fremovexattr(fd, k) == nil {
			changed = true
		}
	}
	return changed
}

// dirMeta gives a disk folder the folder's owner (as root), xattrs and
// mode: one this refresh made (made), before it is renamed into place,
// with the folder's times; or one whose metadata changed in the folder.
func (r *refresher) dirMeta(it *ritem, made bool) {
	if made && !r.madeHere(it) {
		return
	}
	fd, err := r.diskDir(it.path)
	if err != nil {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || !made && st.Ino != it.dst.Ino {
		r.leave(it)
		return
	}
	if os.Geteuid() == 0 {
		unix.Fchown(fd, int(it.e.St.Uid), int(it.e.St.Gid))
	}
	r.syncXattrs(it, fd)
	if err := unix.Fchmod(fd, uint32(it.e.St.Mode)&0o7777); err != nil {
		r.out.NotKept = append(r.out.NotKept, tree.NotKept{Path: it.path, Why: fmt.Sprintf("mode not set on the disk: %v", err)})
	}
	if made {
		foldersync.SetTimesAt(fd, ".", &it.e.St)
		return
	}
	it.done = true
	r.out.Taken++
	r.touched[it.path] = true // its times: the folder's, at the end
}

// madeHere: it's folder was made on the disk by this refresh.
func (r *refresher) madeHere(it *ritem) bool {
	_, ok := r.fresh[it.path]
	return ok && it.made != 0
}

// untouch gives the disk's folders the refresh wrote in the folder's
// times (the same changes were made in both).
func (r *refresher) untouch() {
	for rel := range r.touched {
		r.trim()
		ffd, err := r.folderDir(rel)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(ffd, &st) != nil {
			continue
		}
		if dfd, err := r.diskDir(rel); err == nil {
			ts := []unix.Timespec{tree.StatAtime(&st), tree.StatMtime(&st)}
			unix.UtimesNanoAt(dfd, ".", ts, 0)
		}
	}
}
