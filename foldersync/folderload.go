package foldersync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// FolderLoad copies a Mirror folder onto a fresh RAM disk, reading the
// folder and writing the disk through directory descriptors (never
// following a symlink on either side, never entering another file system),
// and notes each path's identity and content hash for the record, in
// order. Hard links stay links (one copy, several names), sparse files
// keep their holes, and owners are set before modes (a chown clears
// setuid and setgid). FIFOs are made; sockets and devices stay in the
// folder only (the write-back keeps them), as do the names a disk keeps
// for itself at its root.
type FolderLoad struct {
	Folder, Disk string
	Bound        bool // folder is a hidden copy (Keeper.Through), a mount point by design
	CopyFile     tree.CopyFunc
	meter        *tree.Meter
	Loaded       []LoadedPath            // in walk (pathLess) order
	links        map[[2]uint64]firstName // a file with other links: its first name loaded
	diskT        *tree.DirTree           // the disk, for links
	taken        map[string]bool         // names the disk's root holds already (its marker, a zram disk's lost+found)
	NotKept      []tree.NotKept          // what cannot be loaded (sockets, devices)
	stack        []loadLevel             // the folders being loaded, root first
	Files        int
	Bytes        int64
}

// LoadedPath is a path as loaded: the record's folder side of it.
type LoadedPath struct {
	Path  string
	kind  tree.Kind
	mode  uint32
	hash  tree.FileSum
	id    tree.Ident
	hasID bool
}

// Side is what the record keeps of the path as loaded.
func (p *LoadedPath) Side() *Side {
	s := &Side{Kind: p.kind, Mode: p.mode, Hash: p.hash}
	if p.hasID {
		id := p.id
		s.Ident = &id
	}
	return s
}

// firstName is the first name of a file with several, as loaded.
type firstName struct {
	path string
	hash tree.FileSum
}

type loadLevel struct {
	rel string
	fd  int
	e   *tree.FsEntry
	x   map[string][]byte // the folder's xattrs
}

// Run loads the folder; a disk too small is refused before anything is written.
func (l *FolderLoad) Run(ctx context.Context, progress tree.ProgressFunc) error {
	src, err := tree.OpenDirPath(l.Folder)
	if err != nil {
		return err
	}
	defer unix.Close(src)
	var pst, fst unix.Stat_t
	if err := unix.Stat(filepath.Dir(l.Folder), &pst); err == nil && unix.Fstat(src, &fst) == nil && pst.Dev != fst.Dev && !l.Bound {
		return fmt.Errorf("%s is a mount point of another file system; it cannot be mirrored", l.Folder)
	}
	// The disk's mount point is RAMBar's own; below it nothing is followed.
	if l.diskT, err = tree.OpenTree(l.Disk); err != nil {
		return err
	}
	defer l.diskT.Close()
	dst := l.diskT.Fd
	l.taken, l.links = map[string]bool{}, map[[2]uint64]firstName{}
	if names, err := tree.ReadNames(dst); err == nil {
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
	err = tree.WalkFolder(src, func(parent int, name string, e *tree.FsEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.Rel == "." {
			l.stack[0].e = e
			l.stack[0].x, _ = tree.FdXattrs(src)
			l.note(e, tree.FileSum{}, nil)
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
func (l *FolderLoad) note(e *tree.FsEntry, h tree.FileSum, id *tree.Ident) {
	p := LoadedPath{Path: e.Rel, kind: e.Kind(), mode: uint32(e.St.Mode) & 0o7777, hash: h, hasID: id != nil}
	if id != nil {
		p.id = *id
	}
	l.Loaded = append(l.Loaded, p)
}

// pop leaves the deepest folder being loaded: its metadata, now that its
// contents are in.
func (l *FolderLoad) pop() {
	top := l.stack[len(l.stack)-1]
	l.stack = l.stack[:len(l.stack)-1]
	l.dirMeta(top)
	unix.Close(top.fd)
}

// visit loads one entry of the folder (parent is its folder's descriptor).
// A folder that vanished before it was read (e.Vanished), or a file gone
// or replaced before it is opened, is not loaded and not noted: the
// record lacks it as the disk does, and the next refresh or write-back
// finds whatever the folder holds there then.
func (l *FolderLoad) visit(ctx context.Context, parent int, name string, e *tree.FsEntry) error {
	if !l.loads(e) || e.Vanished {
		return nil
	}
	if why := Unloadable(e); why != "" {
		l.NotKept = append(l.NotKept, tree.NotKept{Path: e.Rel, Why: why})
		return nil
	}
	dir, _ := tree.SplitRel(e.Rel)
	for l.stack[len(l.stack)-1].rel != dir {
		if len(l.stack) == 1 {
			return fmt.Errorf("load %s: folder walk out of order at %s", l.Folder, e.Rel)
		}
		l.pop()
	}
	top := l.stack[len(l.stack)-1].fd
	if !e.IsDir() {
		return l.entry(ctx, parent, top, name, e)
	}
	if err := unix.Mkdirat(top, name, 0o700); err != nil {
		return tree.NoSpace(fmt.Errorf("make %s on the disk: %w", e.Rel, err))
	}
	fd, err := tree.OpenDirAt(top, name)
	if err != nil {
		return err
	}
	lv := loadLevel{rel: e.Rel, fd: fd, e: e}
	if from, err := tree.OpenDirAt(parent, name); err == nil {
		lv.x, _ = tree.FdXattrs(from)
		unix.Close(from)
	}
	l.stack = append(l.stack, lv)
	l.note(e, tree.FileSum{}, nil)
	return nil
}

// room walks the folder once (no file read) and refuses a disk too small
// for it; it returns the bytes and files to load. A file with several
// names counts once, a sparse file its data only.
func (l *FolderLoad) room(src int) (need int64, files int, err error) {
	seen := map[[2]uint64]bool{}
	err = tree.WalkFolder(src, func(_ int, _ string, e *tree.FsEntry) error {
		if !l.loads(e) {
			return nil
		}
		need += 4096
		if e.IsReg() {
			if e.St.Nlink > 1 {
				k := [2]uint64{uint64(e.St.Dev), uint64(e.St.Ino)}
				if seen[k] {
					return nil
				}
				seen[k] = true
			}
			need, files = need+min(e.St.Size, int64(e.St.Blocks)*512+4095), files+1
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	if free, err := tree.FreeSpace(l.Disk); err == nil && need > free {
		return 0, 0, fmt.Errorf("load %s: %w: needs %s, %s free; nothing was written", l.Folder, ramdisk.ErrNoSpace,
			ramdisk.Size(need).Short(), ramdisk.Size(free).Short())
	}
	return need, files, nil
}

// loads says whether e goes onto the disk: not a name the disk's root
// holds already, nor a lock file git holds in .git (gitstate.go).
func (l *FolderLoad) loads(e *tree.FsEntry) bool {
	first, _, _ := strings.Cut(e.Rel, "/")
	return first != tree.MarkerName && !l.taken[first] && !GitLock(e.Rel)
}

// Unloadable says why e cannot be put on a disk ("" when it can). They stay
// in the folder: the write-back keeps them.
func Unloadable(e *tree.FsEntry) string {
	switch e.St.Mode & unix.S_IFMT {
	case unix.S_IFSOCK:
		return "a socket: only the process serving it can make it again"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device node: not contents"
	}
	return ""
}

func (l *FolderLoad) entry(ctx context.Context, parent, top int, name string, e *tree.FsEntry) error {
	switch {
	case e.St.Mode&unix.S_IFMT == unix.S_IFIFO:
		l.fifo(top, name, e)
		return nil
	case e.IsLink():
		if err := unix.Symlinkat(e.Link, top, name); err != nil {
			return tree.NoSpace(fmt.Errorf("symlink %s on the disk: %w", e.Rel, err))
		}
		l.owner(top, name, e)
		SetTimesAt(top, name, &e.St)
		l.note(e, LinkHash(e.Link), nil)
		return nil
	}
	key := [2]uint64{uint64(e.St.Dev), uint64(e.St.Ino)}
	if first, ok := l.links[key]; ok && e.St.Nlink > 1 {
		// Another name of a file already loaded: a link to it on the disk.
		if err := l.diskT.Link(l.diskT, first.path, e.Rel); err != nil {
			return tree.NoSpace(fmt.Errorf("link %s to %s on the disk: %w", e.Rel, first.path, err))
		}
		id := tree.IdentOf(&e.St)
		l.note(e, first.hash, &id)
		return nil
	}
	in, err := tree.OpenFileAt(parent, name, &e.St)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, tree.ErrReplaced) {
		return nil // gone or replaced since the walk looked: changed, not loaded
	}
	if err != nil {
		return fmt.Errorf("load %s: %w", e.Rel, err)
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
	if e.St.Nlink > 1 {
		l.links[key] = firstName{path: e.Rel, hash: h}
	}
	l.Files++
	l.Bytes += e.St.Size
	l.meter.Add(e.St.Size, 1)
	return nil
}

// copy writes the file in (entry e) as name in the disk's folder top,
// with its xattrs, owner, mode and times, and returns its content hash.
func (l *FolderLoad) copy(ctx context.Context, in, top int, name string, e *tree.FsEntry) (tree.FileSum, error) {
	mode := uint32(e.St.Mode) & 0o7777
	if l.CopyFile != nil {
		// The hook (ditto on macOS) copies by path; the hash is of what
		// it wrote.
		if err := l.CopyFile(ctx, filepath.Join(l.Folder, e.Rel), filepath.Join(l.Disk, e.Rel)); err != nil {
			return tree.FileSum{}, tree.NoSpace(fmt.Errorf("copy %s: %w", e.Rel, err))
		}
		out, err := tree.OpenFileAt(top, name, nil)
		if err != nil {
			return tree.FileSum{}, err
		}
		defer unix.Close(out)
		l.ownerFd(out, e)
		if err := unix.Fchmod(out, mode); err != nil {
			return tree.FileSum{}, fmt.Errorf("load %s: %w", e.Rel, err)
		}
		SetTimesAt(top, name, &e.St)
		return tree.HashFd(out)
	}
	out, err := unix.Openat(top, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return tree.FileSum{}, tree.NoSpace(fmt.Errorf("create %s on the disk: %w", e.Rel, err))
	}
	defer unix.Close(out)
	h := tree.NewHash()
	if int64(e.St.Blocks)*512 < e.St.Size {
		err = CopyHoles(out, in, h)
	} else {
		err = tree.ReadAll(in, 0, -1, tree.TeeWriter{H: h, FD: out})
	}
	if err == nil {
		x, _ := tree.FdXattrs(in)
		for _, k := range tree.SortedKeys(x) {
			if tree.XattrIsContent(k) {
				unix.Fsetxattr(out, k, x[k], 0)
			}
		}
		l.ownerFd(out, e) // before the mode: a chown clears setuid and setgid
		err = unix.Fchmod(out, mode)
	}
	if err != nil {
		return tree.FileSum{}, tree.NoSpace(fmt.Errorf("load %s: %w", e.Rel, err))
	}
	SetTimesAt(top, name, &e.St)
	return tree.SumOf(h), nil
}

// CopyHoles copies a sparse file's data ranges to out at their offsets,
// leaving its holes holes, and feeds h its whole content (zeros for the
// holes). A file system that cannot tell its ranges gets a whole copy.
func CopyHoles(out, in int, h io.Writer) error {
	ext, size, err := tree.DataExtents(in)
	if err != nil {
		return tree.ReadAll(in, 0, -1, tree.TeeWriter{H: h, FD: out})
	}
	pos := int64(0)
	for _, x := range ext {
		if err := tree.Zeros(h, x.Off-pos); err != nil {
			return err
		}
		if _, err := unix.Seek(out, x.Off, unix.SEEK_SET); err != nil {
			return err
		}
		if err := tree.ReadAll(in, x.Off, x.Len, tree.TeeWriter{H: h, FD: out}); err != nil {
			return err
		}
		pos = x.Off + x.Len
	}
	if err := tree.Zeros(h, size-pos); err != nil {
		return err
	}
	return tree.RetryEINTR(func() error { return unix.Ftruncate(out, size) })
}

// fifo makes a FIFO on the disk as the folder has it (or names it).
func (l *FolderLoad) fifo(top int, name string, e *tree.FsEntry) {
	if err := tree.MkfifoIn(top, name); err != nil {
		l.NotKept = append(l.NotKept, tree.NotKept{Path: e.Rel, Why: fmt.Sprintf("a FIFO: %v", err)})
		return
	}
	l.owner(top, name, e)
	unix.Fchmodat(top, name, uint32(e.St.Mode)&0o7777, 0)
	SetTimesAt(top, name, &e.St)
	l.note(e, tree.FileSum{}, nil)
}

// owner keeps the folder's owner on the disk when RAMBar runs as root.
func (l *FolderLoad) owner(dirfd int, name string, e *tree.FsEntry) {
	if os.Geteuid() == 0 {
		unix.Fchownat(dirfd, name, int(e.St.Uid), int(e.St.Gid), unix.AT_SYMLINK_NOFOLLOW)
	}
}

func (l *FolderLoad) ownerFd(fd int, e *tree.FsEntry) {
	if os.Geteuid() == 0 {
		unix.Fchown(fd, int(e.St.Uid), int(e.St.Gid))
	}
}

func (l *FolderLoad) dirMeta(lv loadLevel) {
	if lv.e == nil {
		return
	}
	l.ownerFd(lv.fd, lv.e)
	for _, k := range tree.SortedKeys(lv.x) {
		if tree.XattrIsContent(k) {
			unix.Fsetxattr(lv.fd, k, lv.x[k], 0)
		}
	}
	unix.Fchmod(lv.fd, uint32(lv.e.St.Mode)&0o7777)
	SetTimesAt(lv.fd, ".", &lv.e.St)
}

// SetTimesAt gives name in the folder dirfd st's modification time, as its
// access and its modification time, not following a symlink.
func SetTimesAt(dirfd int, name string, st *unix.Stat_t) {
	mt := tree.TsNano(tree.StatMtime(st))
	ts := []unix.Timespec{unix.NsecToTimespec(mt), unix.NsecToTimespec(mt)}
	unix.UtimesNanoAt(dirfd, name, ts, unix.AT_SYMLINK_NOFOLLOW)
}
