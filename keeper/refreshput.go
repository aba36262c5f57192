package keeper

import (
	"errors"
	"fmt"
	"os"

	"rambar/foldersync"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// prepare makes it's new version on the disk under its temporary name
// (inside a folder this refresh makes, under its own name).
func (r *refresher) prepare(it *ritem) error {
	if it.act != rTake && it.act != rOverDir {
		return nil
	}
	dir, name := tree.SplitRel(it.path)
	if _, made := r.fresh[dir]; it.inNew && !made {
		it.act = rLeft // its folder could not be made: neither can it
		return nil
	}
	pfd, err := r.diskDir(dir)
	if err != nil {
		return err
	}
	target := it.tmp
	if it.inNew {
		target = name
	}
	e := it.e
	switch {
	case e.IsDir():
		if err := unix.Mkdirat(pfd, target, 0o700); err != nil {
			return err
		}
		r.fresh[it.path] = foldersync.FreshDir{Parent: dir, Name: target}
	case e.IsLink():
		if err := unix.Symlinkat(e.Link, pfd, target); err != nil {
			return err
		}
	case e.St.Mode&unix.S_IFMT == unix.S_IFIFO:
		if err := tree.MkfifoIn(pfd, target); err != nil {
			return err
		}
	default:
		if err := r.makeFile(it, pfd, target); err != nil {
			return err
		}
	}
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, target, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	it.made = uint64(st.Ino)
	if !e.IsDir() && !e.IsReg() {
		if os.Geteuid() == 0 {
			unix.Fchownat(pfd, target, int(e.St.Uid), int(e.St.Gid), unix.AT_SYMLINK_NOFOLLOW)
		}
		if !e.IsLink() {
			fifoMode(pfd, target, it.made, uint32(e.St.Mode)&0o7777)
		}
		foldersync.SetTimesAt(pfd, target, &e.St)
	}
	return nil
}

// makeFile makes the folder's file it as target in the disk's folder pfd:
// a link to the disk's copy of another of its names, or a copy of its
// bytes (holes kept) with its xattrs, owner, mode and times. A file that
// changed in the folder since it was looked at is given up.
func (r *refresher) makeFile(it *ritem, pfd int, target string) error {
	dir, name := tree.SplitRel(it.path)
	if it.e.St.Nlink > 1 {
		if at, ok := r.linkSourceOf(it); ok {
			if afd, err := r.diskDir(at.Dir); err == nil && unix.Linkat(afd, at.Name, pfd, target, 0) == nil {
				return nil
			}
		}
	}
	ffd, err := r.folderDir(dir)
	if err != nil {
		return err
	}
	in, err := tree.OpenFileAt(ffd, name, &it.e.St)
	if err != nil {
		return fmt.Errorf("%w: %v", errMovedOn, err)
	}
	defer unix.Close(in)
	out, err := unix.Openat(pfd, target, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	defer unix.Close(out)
	h := tree.NewHash()
	if int64(it.e.St.Blocks)*512 < it.e.St.Size {
		err = foldersync.CopyHoles(out, in, h)
	} else {
		err = tree.ReadAll(in, 0, -1, tree.TeeWriter{H: h, FD: out})
	}
	if err != nil {
		return err
	}
	var after unix.Stat_t
	if unix.Fstat(in, &after) != nil || tree.IdentOf(&after) != tree.IdentOf(&it.e.St) || tree.SumOf(h) != it.fs.Hash {
		return fmt.Errorf("%w: it changed while it was copied", errMovedOn)
	}
	x, _ := tree.FdXattrs(in)
	for _, n := range tree.SortedKeys(x) {
		if tree.XattrIsContent(n) {
			if err := unix.Fsetxattr(out, n, x[n], 0); err != nil {
				r.out.NotKept = append(r.out.NotKept, tree.NotKept{Path: it.path, Why: fmt.Sprintf("xattr %s not set on the disk: %v", n, err)})
			}
		}
	}
	if os.Geteuid() == 0 {
		unix.Fchown(out, int(it.e.St.Uid), int(it.e.St.Gid)) // before the mode: a chown clears setuid
	}
	if err := unix.Fchmod(out, uint32(it.e.St.Mode)&0o7777); err != nil {
		return err
	}
	foldersync.SetTimesAt(pfd, target, &it.e.St)
	r.meter.Add(it.e.St.Size, 1)
	r.linked(it, foldersync.TempAt{Dir: dir, Name: target})
	return nil
}

// errMovedOn: a folder path changed after the refresh looked at it; it is
// left for the next one.
var errMovedOn = errors.New("changed in the folder while it was taken")

// place renames it's new version over its path (or to it, where the disk
// had none), once a last look finds the disk's entry still the one
// decided on; otherwise the disk keeps its version and the folder's stays
// a change kept in the folder.
func (r *refresher) place(it *ritem) {
	if it.act != rTake || it.inNew {
		it.done = it.act == rTake // inside a folder made here: counted with it (run)
		return
	}
	dir, name := tree.SplitRel(it.path)
	pfd, err := r.diskDir(dir)
	if err != nil || !r.ours(pfd, it) {
		r.leave(it)
		return
	}
	r.touched[dir] = true
	switch {
	case !it.dhas:
		err = tree.RenameNoReplace(pfd, it.tmp, pfd, name)
	case !r.unchanged(pfd, name, it):
		err = unix.EEXIST
	case it.isDir():
		if err = tree.ExchangeAt(pfd, it.tmp, pfd, name); err == nil {
			unix.Unlinkat(pfd, it.tmp, 0) // the disk's old file, now under the temporary name
		} else if errors.Is(err, errors.ErrUnsupported) {
			if err = unix.Unlinkat(pfd, name, 0); err == nil {
				err = tree.RenameNoReplace(pfd, it.tmp, pfd, name)
			}
		}
	default:
		err = unix.Renameat(pfd, it.tmp, pfd, name)
	}
	if err != nil {
		foldersync.RemoveAllAt(pfd, it.tmp)
		r.leave(it)
		return
	}
	if it.isDir() {
		r.fresh[it.path] = foldersync.FreshDir{Parent: dir, Name: name}
		delete(r.ddirs, it.path) // opened under its temporary name: still valid, but found by path now
	}
	it.done = true
	r.out.Taken++
}

// leave gives up it at the last look: the disk changed it meanwhile.
func (r *refresher) leave(it *ritem) {
	it.act = rLeft
	r.out.Left = append(r.out.Left, it.path)
}

// ours: it's temporary name still holds the inode made there.
func (r *refresher) ours(pfd int, it *ritem) bool {
	var st unix.Stat_t
	return unix.Fstatat(pfd, it.tmp, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && uint64(st.Ino) == it.made
}

// unchanged: the disk's name in pfd still holds the entry it decided on.
func (r *refresher) unchanged(pfd int, name string, it *ritem) bool {
	var st unix.Stat_t
	if unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return stillIndexed(it.path, &st, tree.IdentOf(&it.dst))
	}
	return foldersync.SameFile(&it.dst, &st) // not ctime: a link this refresh made to it changes it
}

// deletions removes from the disk, deepest first, what the folder
// deleted, after a second look: the folder still lacks the path, the disk
// still holds the entry decided on.
func (r *refresher) deletions() {
	for i := len(r.items) - 1; i >= 0; i-- {
		it := r.items[i]
		if it.act != rRemove {
			continue
		}
		r.trim()
		dir, name := tree.SplitRel(it.path)
		// The second look resolves the path afresh from the folder's top,
		// never through a descriptor kept open: a folder of it removed and
		// made again since the walk (git clean, then a checkout) is seen as
		// it is now. Only a path the folder lacks is deleted on the disk:
		// it or a folder above it is gone, or a file or a symlink now.
		if _, err := lstatBeneath(r.rootfd, it.path); !absentIn(err) {
			continue // back in the folder, or not told: the next refresh looks again
		}
		pfd, err := r.diskDir(dir)
		if err != nil || !r.unchanged(pfd, name, it) {
			r.leave(it)
			continue
		}
		flag := 0
		if it.dst.Mode&unix.S_IFMT == unix.S_IFDIR {
			flag = unix.AT_REMOVEDIR
		}
		r.touched[dir] = true
		if err := unix.Unlinkat(pfd, name, flag); err != nil {
			r.leave(it) // a folder the disk added to meanwhile: kept
			continue
		}
		it.done = true
		r.out.Removed++
	}
}

// absentIn: a look at a path of the folder that failed with err found it
// absent (gone, or a file or a symlink, never followed, in place of a
// folder on the way).
func absentIn(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP)
}

// overDir puts a file, link or FIFO where the disk had a folder the
// deletions emptied (overEmptyDir: the path is the folder or the new entry
// at every moment); a folder still holding something keeps its name.
func (r *refresher) overDir(it *ritem) {
	dir, name := tree.SplitRel(it.path)
	pfd, err := r.diskDir(dir)
	if err != nil || !r.ours(pfd, it) {
		r.leave(it)
		return
	}
	r.touched[dir] = true
	if err := foldersync.OverEmptyDir(pfd, it.tmp, name, func() bool { return r.ours(pfd, it) }); err != nil {
		if !errors.Is(err, foldersync.ErrNotOurs) {
			unix.Unlinkat(pfd, it.tmp, 0)
		}
		r.leave(it)
		return
	}
	it.done = true
	r.out.Taken++
}

// fifoMode sets the mode of the FIFO the refresh made as name in pfd
// (inode ino) through a descriptor: a name another program swapped for a
// symlink meanwhile is never followed.
func fifoMode(pfd int, name string, ino uint64, mode uint32) {
	fd, err := unix.Openat(pfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && uint64(st.Ino) == ino {
		unix.Fchmod(fd, mode)
	}
}
