package foldersync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"rambar/snapstore"
	"rambar/syncrec"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// Refresh takes the changes made in a Mirror disk's folder since the
// record onto the disk, path by path, right after a save brought the two
// together (Keeper.Refresh holds the store's lock around both): the
// record's disk side of every path is then the save's snapshot, whose
// identities the index holds. For each path the folder changed since the
// record (refreshscan.go), the disk still holds the record's version when
// its identity is the index's: then the applier (apply.go) puts the
// folder's version on the disk. Otherwise the disk changed it too while
// the refresh ran, and it is left to the save after the refresh (its
// write-back keeps both versions). A refresh killed at any point leaves
// each disk path its old version or the folder's, and at worst temporary
// names the next save or refresh removes (CleanDiskTemps).
type Refresh struct {
	Folder, Disk string
	S            *snapstore.Store
	Rec          *syncrec.Record
	// CopyFile, when set, writes each file's bytes (Keeper.CopyFile).
	CopyFile tree.CopyFunc
	Progress tree.ProgressFunc
	// Decided runs once all is decided, before anything is made; Placing
	// before the first rename (tests race them).
	Decided, Placing func()
	Applied

	a      applier
	src    dirs                  // the mirror folder's folders
	idx    map[string]tree.Ident // the index's identities of the paths looked at
	links  map[[2]uint64]linkFrom
	firsts map[[2]uint64]change // a folder file of several names: its first name the folder did not change
	items  []*ritem
	meter  *tree.Meter
	stage  *stage
	root   bool
}

// Applied says what a refresh did to the disk.
type Applied struct {
	// Taken counts the paths whose folder version (or metadata) is now on
	// the disk: added, changed, or made a hard link in the folder.
	Taken int `json:"taken"`
	// Removed counts the paths the folder deleted that are now deleted on
	// the disk.
	Removed int `json:"removed"`
	// Left lists the paths the folder changed that the disk also changed
	// while the refresh ran: the disk kept its version, and the save after
	// the refresh kept both.
	Left []string `json:"left,omitempty"`
	// NotKept names what could not be taken onto the disk, and why.
	NotKept []tree.NotKept `json:"not_kept,omitempty"`
}

// ErrEmptyFolder: a refresh from a folder that holds nothing while the
// disk holds files, which would delete them all (an external drive not
// mounted under the folder's path leaves an empty folder there).
var ErrEmptyFolder = errors.New("the folder is empty while the disk holds files (a drive not mounted there?); " +
	"taking that would empty the disk, so nothing was taken")

// ritem is one path a refresh (or a load) looks at.
type ritem struct {
	Item
	change
	fs     *syncrec.Side // the folder's version, with its content hash (a load: none)
	sum    tree.FileSum  // the hash of the bytes copied
	steady bool          // the folder's file did not change while it was copied
	took   bool          // the applier made it (done)
}

// Run takes the folder's changes onto the disk.
func (r *Refresh) Run(ctx context.Context) error {
	rootfd, err := openFolder(r.Folder, false)
	if err != nil {
		return err
	}
	r.src = newDirs(rootfd)
	defer r.src.close()
	diskfd, err := tree.OpenRetry(r.Disk, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	r.a = applier{d: r, tgt: newDirs(diskfd), store: r.S.Dir, temps: diskTemps, ready: r.Decided, placing: r.Placing}
	defer r.a.tgt.close()
	changes, err := r.scan(ctx)
	if err != nil {
		return err
	}
	if err := r.index(changes); err != nil {
		return err
	}
	r.root, r.links = os.Geteuid() == 0, map[[2]uint64]linkFrom{}
	if r.CopyFile != nil {
		r.stage = &stage{ctx: ctx, fn: r.CopyFile, top: r.Disk, topfd: diskfd, name: tempName()}
		r.a.extra = []TempAt{{Dir: ".", Name: r.stage.name}}
	}
	var bytes int64
	files := 0
	making := map[string]bool{}
	for _, c := range changes {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.a.tgt.trim(maxOpenDirs)
		r.src.trim(maxOpenDirs)
		it := r.decide(c, making)
		if (it.op == opPut || it.op == opOverDir) && it.e.IsReg() {
			bytes, files = bytes+it.e.St.Size, files+1
		}
		r.items, r.a.items = append(r.items, it), append(r.a.items, &it.Item)
	}
	r.meter = tree.NewMeter(r.Progress, "refreshing", bytes, files)
	defer r.meter.Done()
	if err := r.a.run(ctx); err != nil {
		return err
	}
	diskTemps.remove(r.S.Dir)
	return nil
}

// inodeOf is a folder entry's inode, as hard links are told apart.
func inodeOf(e *tree.FsEntry) [2]uint64 { return [2]uint64{uint64(e.St.Dev), uint64(e.St.Ino)} }

// decide sets what the refresh does to c's path of the disk: nothing
// where the disk changed it too (left), else the folder's version put,
// its metadata set, or the path removed.
func (r *Refresh) decide(c *change, making map[string]bool) *ritem {
	it := &ritem{change: *c}
	it.Item = Item{Path: c.path, rf: it}
	dir, name := tree.SplitRel(c.path)
	if c.e != nil {
		it.fs = (&fstate{E: *c.e}).Side()
		it.kind = c.e.Kind()
	}
	if making[dir] && c.e != nil { // inside a folder made here: made with it
		it.op = opPut
		r.hash(it)
	} else {
		r.decideAt(it, dir, name)
	}
	if it.op == opPut && it.kind == tree.KindDir {
		making[it.Path] = true
	}
	return it
}

// decideAt decides it, whose folder dir of the disk exists (or existed).
func (r *Refresh) decideAt(it *ritem, dir, name string) {
	var dst unix.Stat_t
	pfd, err := r.a.tgt.at(dir)
	if err == nil && it.Path == "." {
		err = unix.Fstat(r.a.tgt.root, &dst)
	} else if err == nil {
		err = unix.Fstatat(pfd, name, &dst, unix.AT_SYMLINK_NOFOLLOW)
	}
	dhas := err == nil
	if dhas {
		it.was = &dst
	}
	// A folder of the disk gone, or a symlink or file put in its way
	// (never crossed): the disk changed it.
	looked := err == nil || errors.Is(err, unix.ENOENT) && pfd >= 0
	id, indexed := r.idx[it.Path]
	holds := !it.pending && looked && (it.d == nil && !dhas && !indexed || it.d != nil && dhas && indexed && stillIndexed(it.Path, &dst, id))
	switch {
	case !holds:
		r.leave(it, true)
	case it.e == nil:
		if dhas {
			it.op = opRemove
		}
	case it.e.IsDir() && (!dhas || dst.Mode&unix.S_IFMT != unix.S_IFDIR):
		it.op = opPut
	case it.e.IsDir():
		if dst.Mode&0o7777 != it.e.St.Mode&0o7777 {
			it.op = opMeta
		}
	case !r.hash(it):
	case dhas && dst.Mode&unix.S_IFMT == unix.S_IFDIR:
		it.op = opOverDir
	case dhas && it.d != nil && it.fs.SameContent(it.d) && tree.KindOf(uint32(dst.Mode)) == it.fs.Kind:
		it.op = opMeta
		if k := inodeOf(it.e); it.e.St.Nlink > 1 && r.links[k].name == "" {
			r.links[k] = linkFrom{dir, name, func(st *unix.Stat_t) bool { return sameFile(&dst, st) }}
		}
	default:
		it.op = opPut
	}
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
// target's); false: a file replaced or gone while looked at, left for the
// next refresh.
func (r *Refresh) hash(it *ritem) bool {
	if it.e == nil || !it.e.IsReg() {
		if it.e != nil && it.e.IsLink() {
			it.fs.Hash = syncrec.LinkHash(it.e.Link)
		}
		return true
	}
	fd, release, err := r.source(it)
	if err == nil {
		it.fs.Hash, err = tree.HashFd(fd)
		release()
	}
	if err != nil {
		r.leave(it, false)
	}
	return err == nil
}

// source opens it's folder entry, beneath the folder, as the walk saw it
// (a folder is kept open with the others); release lets it go.
func (r *Refresh) source(it *ritem) (fd int, release func(), err error) {
	dir, name := tree.SplitRel(it.Path)
	if it.e.IsDir() {
		fd, err = r.src.at(it.Path)
		return fd, func() {}, err
	}
	pfd, err := r.src.at(dir)
	if err == nil {
		fd, err = tree.OpenFileAt(pfd, name, &it.e.St)
	}
	if err != nil {
		return -1, func() {}, err
	}
	return fd, func() { unix.Close(fd) }, nil
}

// leave gives it up: the disk keeps its version, the folder's stays a
// change kept in the folder (reported in Left when the disk changed it).
func (r *Refresh) leave(it *ritem, report bool) {
	it.op, it.failed = opNone, true
	if report {
		r.Left = append(r.Left, it.Path)
	}
}

// parent is folder dir of the disk (the refresh makes none in place).
func (r *Refresh) parent(dir string) (int, error) { return r.a.tgt.at(dir) }

// version is the folder's version of it: a file copied (by its
// descriptor, holes kept; through the copy hook where there is one), or
// linked to the disk's copy of another of its names.
func (r *Refresh) version(item *Item, _ int) (*version, error) {
	it := item.rf
	if !it.e.IsReg() {
		return &version{kind: item.kind, link: it.e.Link, meta: folderMeta(it.e, -1, r.root)}, nil
	}
	in, release, err := r.source(it)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errSourceMoved, err)
	}
	f := &folderFile{in: in, e: it.e}
	if it.fs != nil {
		f.want = &it.fs.Hash
	}
	v := r.stage.version(f, filepath.Join(r.Folder, it.Path), folderMeta(it.e, in, r.root))
	v.release = release
	fill := v.fill
	v.fill = func(out int) error {
		if err := fill(out); err != nil {
			return err
		}
		var after unix.Stat_t
		it.sum, it.steady = f.sum, unix.Fstat(in, &after) == nil && tree.IdentOf(&after) == tree.IdentOf(&it.e.St)
		r.meter.Add(it.e.St.Size, 1)
		return nil
	}
	v.links = r.linksOf(it)
	return v, nil
}

// linksOf are the names on the disk the folder's file it (one of several
// names) can be made a hard link of: one the refresh made or found the
// same, or one the folder did not change whose disk version is the
// record's, with these bytes. The first made is noted for the others.
func (r *Refresh) linksOf(it *ritem) []linkFrom {
	if it.e.St.Nlink < 2 {
		return nil
	}
	k := inodeOf(it.e)
	var out []linkFrom
	if l, ok := r.links[k]; ok {
		out = append(out, l)
	} else {
		dir, name := tree.SplitRel(it.Path)
		if !it.fresh {
			name = it.Tmp
		}
		item := &it.Item
		r.links[k] = linkFrom{dir, name, func(st *unix.Stat_t) bool { return item.ino != 0 && uint64(st.Ino) == item.ino }}
	}
	if f, ok := r.firsts[k]; ok && !f.pending && f.d != nil && f.d.Kind == tree.KindFile && f.d.Hash == it.fs.Hash {
		dir, name := tree.SplitRel(f.path)
		id, indexed := r.idx[f.path]
		out = append(out, linkFrom{dir, name, func(st *unix.Stat_t) bool { return indexed && stillIndexed(f.path, st, id) }})
	}
	return out
}

// meta is the folder's metadata of it: its owner (as root), mode, xattrs
// (those that are contents: the disk's others are removed) and times.
func (r *Refresh) meta(item *Item, fd int, _ bool) meta {
	it := item.rf
	src, release, err := r.source(it)
	defer release()
	if err != nil {
		src = -1
	}
	m := folderMeta(it.e, src, r.root)
	if src >= 0 && fd >= 0 {
		for k := range contentXattrs(fd) {
			if _, ok := m.xattrs[k]; !ok {
				m.drop = append(m.drop, k)
			}
		}
	}
	return m
}

// gone: the folder lacks it's path at a second look.
func (r *Refresh) gone(item *Item) bool { return absent(r.src.root, item.Path) }

func (r *Refresh) before(*Item, int, string) error { return nil }

func (r *Refresh) done(item *Item) {
	item.rf.took = true
	switch {
	case item.op == opRemove:
		r.Removed++
	case item.op != opMeta || item.changed:
		r.Taken++
	}
}

// raced: the disk changed it meanwhile; it is left to the save after.
func (r *Refresh) raced(item *Item, _ bool) { r.leave(item.rf, true) }

func (r *Refresh) fail(item *Item, err error) {
	r.leave(item.rf, false)
	if !errors.Is(err, errSourceMoved) && !errors.Is(err, unix.ENOENT) { // changed meanwhile: the next refresh looks again
		r.note(item.Path, fmt.Sprintf("not taken onto the disk: %v", err))
	}
}

func (r *Refresh) keep(*Item) {}

func (r *Refresh) note(path, why string) {
	r.NotKept = append(r.NotKept, tree.NotKept{Path: path, Why: why})
}

// dirTimes: a folder of the disk the refresh wrote in gets the folder's
// times (the same changes were made in both).
func (r *Refresh) dirTimes(rel string, _ int, _ [2]unix.Timespec) ([2]unix.Timespec, bool) {
	var st unix.Stat_t
	fd, err := r.src.at(rel)
	if err != nil || unix.Fstat(fd, &st) != nil {
		return [2]unix.Timespec{}, false
	}
	return *timesOf(&st), true
}
