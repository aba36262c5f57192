package foldersync

import (
	"context"
	"fmt"
	"os"
	"slices"

	"rambar/syncrec"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// FolderLoad copies a Mirror folder onto a fresh RAM disk as a refresh
// takes a new folder onto one (refresh.go, apply.go), streamed: each path
// of the walk of the folder is made on the disk under its own name,
// through directory descriptors on both sides (never following a symlink,
// never entering another file system), and noted with its identity and
// content hash for the record, in order. Hard links stay links (one copy,
// several names), sparse files keep their holes, owners are set before
// modes (a chown clears setuid and setgid), times (access and
// modification) are the folder's. FIFOs are made; sockets and devices stay
// in the folder only (the write-back keeps them), as do the names the
// disk's top holds already, temporary names and git's lock files (skips).
type FolderLoad struct {
	Folder, Disk string
	Bound        bool // folder is a hidden copy (Keeper.Through), a mount point by design
	CopyFile     tree.CopyFunc
	Store        string         // the store's folder: where a copy hook's temporary name is listed
	loaded       []syncrec.Path // in walk (pathLess) order: each path's folder side
	NotKept      []tree.NotKept // what cannot be loaded (sockets, devices)
	Files        int
	Bytes        int64

	r     Refresh
	skip  func(string) bool
	links map[[2]uint64]tree.FileSum // a file with other names: the hash of its first name loaded
	stack []*ritem                   // the folders being loaded, the top first
}

// Run loads the folder; a disk too small is refused before anything is written.
func (l *FolderLoad) Run(ctx context.Context, progress tree.ProgressFunc) error {
	src, err := openFolder(l.Folder, l.Bound)
	if err != nil {
		return err
	}
	l.r = Refresh{Folder: l.Folder, Disk: l.Disk, src: newDirs(src), root: os.Geteuid() == 0, links: map[[2]uint64]linkFrom{}}
	defer l.r.src.close()
	// The disk's mount point is RAMBar's own; below it nothing is followed.
	dst, err := tree.OpenRetry(l.Disk, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	l.r.a = applier{d: &l.r, tgt: newDirs(dst), timed: map[string]bool{}, unplaced: map[string]bool{}}
	defer l.r.a.tgt.close()
	taken, _ := tree.ReadNames(dst) // its marker, a zram disk's lost+found
	l.skip = skips(func(n string) bool { return slices.Contains(taken, n) })
	need, n, err := l.room(src)
	if err != nil {
		return err
	}
	if l.CopyFile != nil && l.Store != "" {
		l.r.stage = &stage{ctx: ctx, fn: l.CopyFile, top: l.Disk, topfd: dst, name: tempName()}
		staged := []TempAt{{Dir: ".", Name: l.r.stage.name}}
		if err := diskTemps.write(l.Store, staged); err != nil {
			return err
		}
		defer func() { cleanTemps(dst, staged); diskTemps.remove(l.Store) }()
	}
	l.r.meter = tree.NewMeter(progress, "loading", need, n)
	defer l.r.meter.Done()
	l.links = map[[2]uint64]tree.FileSum{}
	err = tree.WalkFolder(src, func(_ int, _ string, e *tree.FsEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return l.visit(e)
	})
	for err == nil && len(l.stack) > 0 {
		l.pop()
	}
	l.NotKept = append(l.NotKept, l.r.NotKept...)
	return err
}

// visit loads one entry of the folder. A folder that vanished before it
// was read (e.Vanished), or a file gone or replaced before it is opened,
// is not loaded and not noted: the record lacks it as the disk does, and
// the next refresh or write-back finds whatever the folder holds there
// then.
func (l *FolderLoad) visit(e *tree.FsEntry) error {
	if l.skip(e.Rel) {
		return skipped(e)
	}
	if why := unloadable(e); e.Vanished || why != "" {
		if why != "" {
			l.NotKept = append(l.NotKept, tree.NotKept{Path: e.Rel, Why: why})
		}
		return nil
	}
	dir, _ := tree.SplitRel(e.Rel)
	for len(l.stack) > 0 && l.stack[len(l.stack)-1].Path != dir && e.Rel != "." {
		l.pop()
	}
	it := &ritem{change: change{path: e.Rel, e: e}}
	it.Item = Item{Path: e.Rel, op: opPut, kind: e.Kind(), fresh: true, rf: it}
	l.r.a.tgt.trim(maxOpenDirs)
	l.r.src.trim(maxOpenDirs)
	if e.Rel != "." {
		if err := l.r.a.prepare(&it.Item); err != nil && !givenUp(err) {
			return tree.NoSpace(fmt.Errorf("load %s: %w", e.Rel, err))
		} else if err != nil {
			l.r.a.fail(&it.Item, err)
		}
	}
	if it.failed {
		return nil
	}
	f := &syncrec.Side{Kind: it.kind, Mode: uint32(e.St.Mode) & 0o7777}
	switch {
	case e.IsDir():
		l.stack = append(l.stack, it)
	case e.IsLink():
		f.Hash = syncrec.LinkHash(e.Link)
	case e.IsReg() && e.St.Nlink > 1 && it.sum.None():
		f.Hash = l.links[inodeOf(e)] // a link to its first name
		f.Ident = new(tree.IdentOf(&e.St))
	case e.IsReg():
		f.Hash = it.sum
		if it.steady { // changed while read: none, so the next write-back reads it again
			f.Ident = new(tree.IdentOf(&e.St))
		}
		if e.St.Nlink > 1 {
			l.links[inodeOf(e)] = it.sum
		}
		l.Files++
		l.Bytes += e.St.Size
	}
	l.loaded = append(l.loaded, syncrec.Path{Path: e.Rel, F: f})
	return nil
}

// pop leaves the deepest folder being loaded: its metadata, now that what
// it holds is in.
func (l *FolderLoad) pop() {
	it := l.stack[len(l.stack)-1]
	l.stack = l.stack[:len(l.stack)-1]
	l.r.a.dirMeta(&it.Item)
}

// Record fills the record of the load (syncrec.Write): each path's folder
// side as loaded and disk side as the load was saved (entries: the same
// bytes, the hash of what was just copied), in order.
func (l *FolderLoad) Record(entries []tree.Entry) func(add func(*syncrec.Path) error) error {
	return func(add func(*syncrec.Path) error) error {
		return syncrec.JoinEach(syncrec.EachOf(l.loaded), entries, func(e *tree.Entry) string { return e.Path }, func(e *tree.Entry, p *syncrec.Path) error {
			if e == nil {
				return add(p)
			}
			sp := syncrec.Path{Path: e.Path, D: syncrec.DiskSide(e, sourceIn(entries, e))}
			if p != nil {
				sp.F = p.F
			}
			if e.Kind == tree.KindFile && sp.F != nil && sp.F.Kind == tree.KindFile {
				sp.D.Hash = sp.F.Hash // the bytes just copied
			}
			return add(&sp)
		})
	}
}

// room walks the folder once (no file read) and refuses a disk too small
// for it; it returns the bytes and files to load. A file with several
// names counts once, a sparse file its data only.
func (l *FolderLoad) room(src int) (need int64, files int, err error) {
	seen := map[[2]uint64]bool{}
	err = tree.WalkFolder(src, func(_ int, _ string, e *tree.FsEntry) error {
		if l.skip(e.Rel) {
			return skipped(e)
		}
		need += 4096
		if e.IsReg() && !seen[inodeOf(e)] {
			seen[inodeOf(e)] = e.St.Nlink > 1
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

// unloadable says why e cannot be put on a disk ("" when it can). They
// stay in the folder: the write-back keeps them.
func unloadable(e *tree.FsEntry) string {
	switch e.St.Mode & unix.S_IFMT {
	case unix.S_IFSOCK:
		return "a socket: only the process serving it can make it again"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device node: not contents"
	}
	return ""
}
