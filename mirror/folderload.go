package mirror

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"rambar/tree"
	"strings"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// folderLoad copies a Mirror folder onto a fresh RAM disk, reading the
// folder and writing the disk through directory descriptors (never
// following a symlink on either side, never entering another file system),
// and notes each path's identity and content hash for the record, in
// order. Hard links stay links (one copy, several names), sparse files
// keep their holes, and owners are set before modes (a chown clears
// setuid and setgid). FIFOs are made; sockets and devices stay in the
// folder only (the write-back keeps them), as do the names a disk keeps
// for itself at its root.
type folderLoad struct {
	folder, disk string
	bound        bool // folder is a hidden copy (Keeper.Through), a mount point by design
	copyFile     tree.CopyFunc
	meter        *tree.Meter
	loaded       []loadedPath            // in walk (pathLess) order
	links        map[[2]uint64]firstName // a file with other links: its first name loaded
	diskT        *tree.DirTree           // the disk, for links
	taken        map[string]bool         // names the disk's root holds already (its marker, a zram disk's lost+found)
	notKept      []tree.NotKept          // what cannot be loaded (sockets, devices)
	stack        []loadLevel             // the folders being loaded, root first
	files        int
	bytes        int64
}

// loadedPath is a path as loaded: the record's folder side of it.
type loadedPath struct {
	path  string
	kind  tree.Kind
	mode  uint32
	hash  sum
	id    tree.Ident
	hasID bool
}

func (p *loadedPath) side() *side {
	s := &side{Kind: p.kind, Mode: p.mode, Hash: p.hash}
	if p.hasID {
		id := p.id
		s.Ident = &id
	}
	return s
}

// firstName is the first name of a file with several, as loaded.
type firstName struct {
	path string
	hash sum
}

type loadLevel struct {
	rel string
	fd  int
	e   *fsEntry
	x   map[string][]byte // the folder's xattrs
}

// run loads the folder; a disk too small is refused before anything is written.
func (l *folderLoad) run(ctx context.Context, progress tree.ProgressFunc) error {
	src, err := openDirPath(l.folder)
	if err != nil {
		return err
	}
	defer unix.Close(src)
	var pst, fst unix.Stat_t
	if err := unix.Stat(filepath.Dir(l.folder), &pst); err == nil && unix.Fstat(src, &fst) == nil && pst.Dev != fst.Dev && !l.bound {
		return fmt.Errorf("%s is a mount point of another file system; it cannot be mirrored", l.folder)
	}
	// The disk's mount point is RAMBar's own; below it nothing is followed.
	if l.diskT, err = tree.OpenTree(l.disk); err != nil {
		return err
	}
	defer l.diskT.Close()
	dst := l.diskT.Fd
	l.taken, l.links = map[string]bool{}, map[[2]uint64]firstName{}
	if names, err := readNames(dst); err == nil {
		for _, n := range names {
			l.taken[n] = true
		}
	}
	need, n, err := l.room(src)
	if err != nil {
		return err
	}
	l.meter = tree.NewMeter(progress, "loading", need, n)
	defer l.meter.Done()
	l.stack = []loadLevel{{rel: ".", fd: dst}}
	err = walkFolder(src, func(parent int, name string, e *fsEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.rel == "." {
			l.stack[0].e = e
			l.stack[0].x, _ = fdXattrs(src)
			l.note(e, sum{}, nil)
			return nil
		}
		return l.visit(ctx, parent, name, e)
	})
	for len(l.stack) > 1 {
		l.pop()
	}
	if err == nil {
		l.dirMeta(l.stack[0])
	}
	return err
}

// note adds e to what was loaded, with its content hash and, when it is
// known to be the loaded version's, its identity.
func (l *folderLoad) note(e *fsEntry, h sum, id *tree.Ident) {
	p := loadedPath{path: e.rel, kind: e.kind(), mode: uint32(e.st.Mode) & 0o7777, hash: h, hasID: id != nil}
	if id != nil {
		p.id = *id
	}
	l.loaded = append(l.loaded, p)
}

// pop leaves the deepest folder being loaded: its metadata, now that its
// contents are in.
func (l *folderLoad) pop() {
	top := l.stack[len(l.stack)-1]
	l.stack = l.stack[:len(l.stack)-1]
	l.dirMeta(top)
	unix.Close(top.fd)
}

// visit loads one entry of the folder (parent is its folder's descriptor).
func (l *folderLoad) visit(ctx context.Context, parent int, name string, e *fsEntry) error {
	if !l.loads(e) {
		return nil
	}
	if why := unloadable(e); why != "" {
		l.notKept = append(l.notKept, tree.NotKept{Path: e.rel, Why: why})
		return nil
	}
	dir, _ := splitRel(e.rel)
	for l.stack[len(l.stack)-1].rel != dir {
		if len(l.stack) == 1 {
			return fmt.Errorf("load %s: folder walk out of order at %s", l.folder, e.rel)
		}
		l.pop()
	}
	top := l.stack[len(l.stack)-1].fd
	if !e.isDir() {
		return l.entry(ctx, parent, top, name, e)
	}
	if err := unix.Mkdirat(top, name, 0o700); err != nil {
		return tree.NoSpace(fmt.Errorf("make %s on the disk: %w", e.rel, err))
	}
	fd, err := openDirAt(top, name)
	if err != nil {
		return err
	}
	lv := loadLevel{rel: e.rel, fd: fd, e: e}
	if from, err := openDirAt(parent, name); err == nil {
		lv.x, _ = fdXattrs(from)
		unix.Close(from)
	}
	l.stack = append(l.stack, lv)
	l.note(e, sum{}, nil)
	return nil
}

// room walks the folder once (no file read) and refuses a disk too small
// for it; it returns the bytes and files to load. A file with several
// names counts once, a sparse file its data only.
func (l *folderLoad) room(src int) (need int64, files int, err error) {
	seen := map[[2]uint64]bool{}
	err = walkFolder(src, func(_ int, _ string, e *fsEntry) error {
		if !l.loads(e) {
			return nil
		}
		need += 4096
		if e.isReg() {
			if e.st.Nlink > 1 {
				k := [2]uint64{uint64(e.st.Dev), uint64(e.st.Ino)}
				if seen[k] {
					return nil
				}
				seen[k] = true
			}
			need, files = need+min(e.st.Size, int64(e.st.Blocks)*512+4095), files+1
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	if free, err := tree.FreeSpace(l.disk); err == nil && need > free {
		return 0, 0, fmt.Errorf("load %s: %w: needs %s, %s free; nothing was written", l.folder, ramdisk.ErrNoSpace,
			ramdisk.Size(need).Short(), ramdisk.Size(free).Short())
	}
	return need, files, nil
}

// loads says whether e goes onto the disk: not a name the disk's root
// holds already, nor a lock file git holds in .git (gitstate.go).
func (l *folderLoad) loads(e *fsEntry) bool {
	first, _, _ := strings.Cut(e.rel, "/")
	return first != tree.MarkerName && !l.taken[first] && !gitLock(e.rel)
}

// unloadable says why e cannot be put on a disk ("" when it can). They stay
// in the folder: the write-back keeps them.
func unloadable(e *fsEntry) string {
	switch e.st.Mode & unix.S_IFMT {
	case unix.S_IFSOCK:
		return "a socket: only the process serving it can make it again"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device node: not contents"
	}
	return ""
}

func (l *folderLoad) entry(ctx context.Context, parent, top int, name string, e *fsEntry) error {
	switch {
	case e.st.Mode&unix.S_IFMT == unix.S_IFIFO:
		l.fifo(top, name, e)
		return nil
	case e.isLink():
		if err := unix.Symlinkat(e.link, top, name); err != nil {
			return tree.NoSpace(fmt.Errorf("symlink %s on the disk: %w", e.rel, err))
		}
		l.owner(top, name, e)
		setTimesAt(top, name, &e.st)
		l.note(e, linkHash(e.link), nil)
		return nil
	}
	key := [2]uint64{uint64(e.st.Dev), uint64(e.st.Ino)}
	if first, ok := l.links[key]; ok && e.st.Nlink > 1 {
		// Another name of a file already loaded: a link to it on the disk.
		if err := l.diskT.Link(l.diskT, first.path, e.rel); err != nil {
			return tree.NoSpace(fmt.Errorf("link %s to %s on the disk: %w", e.rel, first.path, err))
		}
		id := tree.IdentOf(&e.st)
		l.note(e, first.hash, &id)
		return nil
	}
	in, err := openFileAt(parent, name, &e.st)
	if err != nil {
		return fmt.Errorf("load %s: %w", e.rel, err)
	}
	defer unix.Close(in)
	var before unix.Stat_t
	unix.Fstat(in, &before)
	h, err := l.copy(ctx, in, top, name, e)
	if err != nil {
		return err
	}
	var after unix.Stat_t
	var id *tree.Ident // changed while read: none, so the next write-back reads it again
	if unix.Fstat(in, &after) == nil && tree.IdentOf(&after) == tree.IdentOf(&before) {
		a := tree.IdentOf(&after)
		id = &a
	}
	l.note(e, h, id)
	if e.st.Nlink > 1 {
		l.links[key] = firstName{path: e.rel, hash: h}
	}
	l.files++
	l.bytes += e.st.Size
	l.meter.Add(e.st.Size, 1)
	return nil
}

// copy writes the file in (entry e) as name in the disk's folder top,
// with its xattrs, owner, mode and times, and returns its content hash.
func (l *folderLoad) copy(ctx context.Context, in, top int, name string, e *fsEntry) (sum, error) {
	mode := uint32(e.st.Mode) & 0o7777
	if l.copyFile != nil {
		// The hook (ditto on macOS) copies by path; the hash is of what
		// it wrote.
		if err := l.copyFile(ctx, filepath.Join(l.folder, e.rel), filepath.Join(l.disk, e.rel)); err != nil {
			return sum{}, tree.NoSpace(fmt.Errorf("copy %s: %w", e.rel, err))
		}
		out, err := openFileAt(top, name, nil)
		if err != nil {
			return sum{}, err
		}
		defer unix.Close(out)
		l.ownerFd(out, e)
		if err := unix.Fchmod(out, mode); err != nil {
			return sum{}, fmt.Errorf("load %s: %w", e.rel, err)
		}
		setTimesAt(top, name, &e.st)
		return hashFd(out)
	}
	out, err := unix.Openat(top, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return sum{}, tree.NoSpace(fmt.Errorf("create %s on the disk: %w", e.rel, err))
	}
	defer unix.Close(out)
	h := newHash()
	if int64(e.st.Blocks)*512 < e.st.Size {
		err = copyHoles(out, in, h)
	} else {
		err = readAll(in, 0, -1, teeWriter{h, out})
	}
	if err == nil {
		x, _ := fdXattrs(in)
		for _, k := range tree.SortedKeys(x) {
			if tree.XattrIsContent(k) {
				unix.Fsetxattr(out, k, x[k], 0)
			}
		}
		l.ownerFd(out, e) // before the mode: a chown clears setuid and setgid
		err = unix.Fchmod(out, mode)
	}
	if err != nil {
		return sum{}, tree.NoSpace(fmt.Errorf("load %s: %w", e.rel, err))
	}
	setTimesAt(top, name, &e.st)
	return sumOf(h), nil
}

// copyHoles copies a sparse file's data ranges to out at their offsets,
// leaving its holes holes, and feeds h its whole content (zeros for the
// holes). A file system that cannot tell its ranges gets a whole copy.
func copyHoles(out, in int, h io.Writer) error {
	ext, size, err := tree.DataExtents(in)
	if err != nil {
		return readAll(in, 0, -1, teeWriter{h, out})
	}
	pos := int64(0)
	for _, x := range ext {
		if err := zeros(h, x.Off-pos); err != nil {
			return err
		}
		if _, err := unix.Seek(out, x.Off, unix.SEEK_SET); err != nil {
			return err
		}
		if err := readAll(in, x.Off, x.Len, teeWriter{h, out}); err != nil {
			return err
		}
		pos = x.Off + x.Len
	}
	if err := zeros(h, size-pos); err != nil {
		return err
	}
	return tree.RetryEINTR(func() error { return unix.Ftruncate(out, size) })
}

// fifo makes a FIFO on the disk as the folder has it (or names it).
func (l *folderLoad) fifo(top int, name string, e *fsEntry) {
	if err := tree.MkfifoIn(top, name); err != nil {
		l.notKept = append(l.notKept, tree.NotKept{Path: e.rel, Why: fmt.Sprintf("a FIFO: %v", err)})
		return
	}
	l.owner(top, name, e)
	unix.Fchmodat(top, name, uint32(e.st.Mode)&0o7777, 0)
	setTimesAt(top, name, &e.st)
	l.note(e, sum{}, nil)
}

// owner keeps the folder's owner on the disk when RAMBar runs as root.
func (l *folderLoad) owner(dirfd int, name string, e *fsEntry) {
	if os.Geteuid() == 0 {
		unix.Fchownat(dirfd, name, int(e.st.Uid), int(e.st.Gid), unix.AT_SYMLINK_NOFOLLOW)
	}
}

func (l *folderLoad) ownerFd(fd int, e *fsEntry) {
	if os.Geteuid() == 0 {
		unix.Fchown(fd, int(e.st.Uid), int(e.st.Gid))
	}
}

func (l *folderLoad) dirMeta(lv loadLevel) {
	if lv.e == nil {
		return
	}
	l.ownerFd(lv.fd, lv.e)
	for _, k := range tree.SortedKeys(lv.x) {
		if tree.XattrIsContent(k) {
			unix.Fsetxattr(lv.fd, k, lv.x[k], 0)
		}
	}
	unix.Fchmod(lv.fd, uint32(lv.e.st.Mode)&0o7777)
	setTimesAt(lv.fd, ".", &lv.e.st)
}

func setTimesAt(dirfd int, name string, st *unix.Stat_t) {
	mt := tree.TsNano(tree.StatMtime(st))
	ts := []unix.Timespec{unix.NsecToTimespec(mt), unix.NsecToTimespec(mt)}
	unix.UtimesNanoAt(dirfd, name, ts, unix.AT_SYMLINK_NOFOLLOW)
}
