package keeper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"rambar/foldersync"
	"rambar/snapshot"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// refresher takes a Mirror folder's changes onto its disk, path by path,
// with the store's lock held, right after a save brought the disk and the
// folder together: the record's disk side of every path is then the
// save's snapshot, whose identities the index holds. For each path the
// folder changed since the record (refreshscan.go), the disk still holds
// the record's version when its identity is the index's: then the
// folder's version is put on the disk. Otherwise the disk changed it too
// while the refresh ran, and it is left to the save after the refresh
// (its write-back keeps both versions).
//
// Its phases, as a write-back's (writeback.go, place.go) the other way:
//
//  1. decide, hashing only the folder's files whose identity changed;
//  2. list the temporary names in the store (refreshjournal.go);
//  3. make each new version under its temporary name in its own folder
//     of the disk, through that folder's descriptor, never following a
//     symlink: a file copied (holes kept, or linked where the folder has
//     it as a hard link of a file already on the disk), a symlink, a FIFO,
//     with owner (as root), xattrs, mode and times; a folder the disk
//     lacks is made under a temporary name with what it holds, its
//     metadata set deepest first;
//  4. in path order, rename each over its path once a last look finds the
//     disk's entry still the one decided on (RENAME_NOREPLACE where the
//     disk had none, an exchange for a folder over a file);
//  5. deletions, deepest first, after a second look at both sides: the
//     folder still lacks the path, the disk still holds what the index
//     says; a folder is removed only once empty;
//  6. files, links and FIFOs where the disk had a folder the deletions
//     emptied; metadata changed in the folder, set in place; the times of
//     the disk's folders written in, as the folder's.
type refresher struct {
	folder string
	s      *snapshot.Store
	idx    map[string]tree.Ident // the index's identities of the paths looked at
	out    *Refreshed
	meter  *tree.Meter

	rootfd, diskfd int
	ddirs, fdirs   map[string]int                  // folders of the disk and the folder open now
	fresh          map[string]foldersync.FreshDir  // disk folders this refresh made, where they are
	links          map[[2]uint64]foldersync.TempAt // a folder inode with several names: where the disk has its bytes
	firsts         map[[2]uint64]fchange           // such an inode's first name the folder did not change
	touched        map[string]bool                 // disk folders whose entries changed
	items          []*ritem
	temps          []foldersync.TempAt
	decided        func() // tests: runs once all is decided, before anything is made
}

// ract is what a refresh does to one path of the disk.
type ract uint8

const (
	rNone    ract = iota // the disk has the folder's version already
	rMeta                // the folder's metadata on the disk's entry, in place
	rTake                // the folder's version under a temporary name, renamed over the path
	rOverDir             // rTake where the disk has a folder, once the deletions empty it
	rRemove              // deleted on the disk
	rLeft                // the disk changed it too: left to the save after the refresh
)

// ritem is one path a refresh looks at.
type ritem struct {
	fchange
	fs    *foldersync.Side // the folder's version, with its content hash
	act   ract
	tmp   string      // its temporary name on the disk; "" inside a folder made here
	dst   unix.Stat_t // the disk's entry decided on (dhas)
	dhas  bool
	made  uint64 // the inode made
	inNew bool   // inside a folder this refresh makes
	done  bool
}

func (it *ritem) isDir() bool { return it.e != nil && it.e.IsDir() }

func (r *refresher) run(ctx context.Context, changes []*fchange, progress tree.ProgressFunc) error {
	r.ddirs, r.fdirs, r.fresh = map[string]int{}, map[string]int{}, map[string]foldersync.FreshDir{}
	r.links, r.touched = map[[2]uint64]foldersync.TempAt{}, map[string]bool{}
	defer r.close()
	making := map[string]bool{}
	var bytes int64
	files := 0
	for _, c := range changes {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.trim()
		it := &ritem{fchange: *c}
		dir, _ := tree.SplitRel(it.path)
		it.inNew = making[dir]
		if err := r.decide(it); err != nil {
			return err
		}
		if it.act == rTake || it.act == rOverDir {
			if !it.inNew {
				it.tmp = refreshTemp()
				r.temps = append(r.temps, foldersync.TempAt{Dir: dir, Name: it.tmp})
			}
			if it.isDir() {
				making[it.path] = true
			} else if it.e.IsReg() {
				bytes, files = bytes+it.e.St.Size, files+1
			}
		}
		r.items = append(r.items, it)
	}
	if r.decided != nil {
		r.decided()
	}
	if len(r.temps) > 0 {
		if err := writeRefreshJournal(r.s.Dir, r.temps); err != nil {
			return err
		}
	}
	r.meter = tree.NewMeter(progress, "refreshing", bytes, files)
	defer r.meter.Done()
	for _, it := range r.items {
		if err := ctx.Err(); err != nil {
			r.undo()
			return err
		}
		r.trim()
		if err := r.prepare(it); err != nil {
			if !foldersync.Refused(err) && !errors.Is(err, errMovedOn) && !errors.Is(err, unix.ENOENT) {
				r.undo()
				return fmt.Errorf("take %s onto the disk (the disk is as it was): %w", it.path, tree.NoSpace(err))
			}
			r.give(it, err)
		}
	}
	for i := len(r.items) - 1; i >= 0; i-- {
		if it := r.items[i]; it.act == rTake && it.isDir() {
			r.trim()
			r.dirMeta(it, true)
		}
	}
	made := map[string]*ritem{} // folders made here, by path
	for _, it := range r.items {
		r.trim()
		r.place(it)
		if it.act == rTake && it.isDir() {
			made[it.path] = it
		}
		if dir, _ := tree.SplitRel(it.path); it.inNew && it.done {
			// Inside a folder made here: it appeared with the folder.
			if it.done = made[dir] != nil && made[dir].done; it.done {
				r.out.Taken++
			}
		}
	}
	r.deletions()
	for _, it := range r.items {
		r.trim()
		switch {
		case it.act == rOverDir:
			r.overDir(it)
		case it.act == rMeta && !it.isDir():
			r.meta(it)
		}
	}
	for i := len(r.items) - 1; i >= 0; i-- {
		if it := r.items[i]; it.act == rMeta && it.isDir() {
			r.trim()
			r.dirMeta(it, false)
		}
	}
	r.untouch()
	for _, p := range foldersync.CleanTemps(r.diskfd, r.temps) {
		r.out.NotKept = append(r.out.NotKept, tree.NotKept{Path: p, Why: "a temporary name of the refresh could not be removed"})
	}
	os.Remove(refreshJournalPath(r.s.Dir))
	return nil
}

func (r *refresher) close() { r.closeDirs() }

// give gives up one path: the disk keeps its version, the folder's stays
// a change kept in the folder.
func (r *refresher) give(it *ritem, err error) {
	it.act = rLeft
	if errors.Is(err, errMovedOn) || errors.Is(err, unix.ENOENT) {
		return // changed meanwhile: the next refresh looks again
	}
	r.out.NotKept = append(r.out.NotKept, tree.NotKept{Path: it.path, Why: fmt.Sprintf("not taken onto the disk: %v", err)})
}

// undo removes what a refresh that stops before its first rename made.
func (r *refresher) undo() {
	foldersync.CleanTemps(r.diskfd, r.temps)
	os.Remove(refreshJournalPath(r.s.Dir))
}

// decide sets it's action from the folder's version and the disk's.
func (r *refresher) decide(it *ritem) error {
	dir, name := tree.SplitRel(it.path)
	if it.e != nil {
		it.fs = (&foldersync.Fstate{E: *it.e}).Side()
	}
	if it.inNew {
		it.act = rTake
		return r.hash(it)
	}
	pfd, err := r.diskDir(dir)
	if err == nil && it.path == "." {
		err = unix.Fstat(r.diskfd, &it.dst)
	} else if err == nil {
		err = unix.Fstatat(pfd, name, &it.dst, unix.AT_SYMLINK_NOFOLLOW)
	}
	it.dhas = err == nil
	// A folder of the disk gone, or a symlink or file put in its way
	// (never crossed): the disk changed it.
	looked := err == nil || errors.Is(err, unix.ENOENT) && pfd >= 0
	id, indexed := r.idx[it.path]
	holds := !it.pending && looked && (it.d == nil && !it.dhas && !indexed || it.d != nil && it.dhas && indexed && stillIndexed(it.path, &it.dst, id))
	switch {
	case !holds:
		it.act = rLeft
		r.out.Left = append(r.out.Left, it.path)
	case it.e == nil:
		it.act = rNone
		if it.dhas {
			it.act = rRemove
		}
	case it.isDir():
		switch {
		case !it.dhas || it.dst.Mode&unix.S_IFMT != unix.S_IFDIR:
			it.act = rTake
		case it.dst.Mode&0o7777 != it.e.St.Mode&0o7777:
			it.act = rMeta
		}
	default:
		if err := r.hash(it); err != nil {
			return err
		}
		switch {
		case it.act == rLeft:
		case it.dhas && it.dst.Mode&unix.S_IFMT == unix.S_IFDIR:
			it.act = rOverDir
		case it.dhas && it.d != nil && it.fs.SameContent(it.d) && tree.KindOf(uint32(it.dst.Mode)) == it.fs.Kind:
			it.act = rMeta
			r.linked(it, foldersync.TempAt{Dir: dir, Name: name})
		default:
			it.act = rTake
		}
	}
	return nil
}

// stillIndexed: the disk's entry st is the version the index recorded
// (a folder: the same folder, mode and kind; its times change with what
// it holds).
func stillIndexed(rel string, st *unix.Stat_t, id tree.Ident) bool {
	now := tree.IdentOf(st)
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return now.Ino == id.Ino && now.Mode == id.Mode
	}
	return tree.SameIdent(rel, now, id)
}

// hash reads the content hash of it's folder file (a link's is its
// target's); a file replaced while read is left for the next refresh.
func (r *refresher) hash(it *ritem) error {
	if it.e == nil || !it.e.IsReg() {
		if it.e != nil && it.e.IsLink() {
			it.fs.Hash = foldersync.LinkHash(it.e.Link)
		}
		return nil
	}
	dir, name := tree.SplitRel(it.path)
	pfd, err := r.folderDir(dir)
	if err != nil {
		it.act = rLeft
		return nil
	}
	fd, err := tree.OpenFileAt(pfd, name, &it.e.St)
	if err != nil {
		it.act = rLeft // replaced while looked at: the next refresh takes it
		return nil
	}
	defer unix.Close(fd)
	it.fs.Hash, err = tree.HashFd(fd)
	if err != nil {
		return fmt.Errorf("read %s: %w", filepath.Join(r.folder, it.path), err)
	}
	return nil
}

// maxRefreshDirs is how many folders a refresh keeps open on each side.
const maxRefreshDirs = 128

func (r *refresher) trim() {
	if len(r.ddirs)+len(r.fdirs) > 2*maxRefreshDirs {
		r.closeDirs()
	}
}

func (r *refresher) closeDirs() {
	for k, fd := range r.ddirs {
		unix.Close(fd)
		delete(r.ddirs, k)
	}
	for k, fd := range r.fdirs {
		unix.Close(fd)
		delete(r.fdirs, k)
	}
}

// diskDir opens folder rel of the disk (beneath it, no symlink on the
// way), or a folder this refresh made where it is now; valid until the
// next trim.
func (r *refresher) diskDir(rel string) (int, error) {
	if rel == "." {
		return r.diskfd, nil
	}
	if fd, ok := r.ddirs[rel]; ok {
		return fd, nil
	}
	var fd int
	var err error
	if f, ok := r.fresh[rel]; ok {
		pfd, perr := r.diskDir(f.Parent)
		if perr != nil {
			return -1, perr
		}
		fd, err = tree.OpenDirAt(pfd, f.Name)
	} else {
		fd, err = tree.OpenBeneath(r.diskfd, rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return -1, err
	}
	r.ddirs[rel] = fd
	return fd, nil
}

// folderDir opens folder rel of the mirror folder, beneath it.
func (r *refresher) folderDir(rel string) (int, error) {
	if rel == "." {
		return r.rootfd, nil
	}
	if fd, ok := r.fdirs[rel]; ok {
		return fd, nil
	}
	fd, err := tree.OpenBeneath(r.rootfd, rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	r.fdirs[rel] = fd
	return fd, nil
}
