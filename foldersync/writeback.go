package foldersync

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"rambar/snapstore"
	"rambar/syncrec"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// PathWrite is one write-back of a Mirror folder, path by path: only the
// paths the disk changed since the record are looked at in the folder
// (changes.go), each gets the version the plan says (plan.go), and the
// applier (apply.go) puts the disk's versions in place, from the store
// (wbapply.go). Every folder, and every path not replaced, keeps its
// inode: a shell or editor inside the folder, and its watchers, see only
// the files that changed change.
type PathWrite struct {
	Folder string
	Bound  bool   // folder is a hidden copy (Keeper.Through), a mount point by design
	Disk   string // the disk's mount point (second looks before deletions)
	S      *snapstore.Store
	Id     string          // the snapshot written back
	Rec    *syncrec.Record // the last sync; nil: none (every difference is a conflict)
	// Bases, after a refresh, stand in for the record's versions of the
	// paths it took (Refresh.Bases).
	Bases map[string]syncrec.Path
	At    time.Time
	// Placing, when set, runs once the new files are written and flushed,
	// before the first rename (tests race it and count the flushes).
	Placing func(w *PathWrite)

	a       applier // the folder's side (apply.go)
	diskfd  int
	rootDev uint64
	owner   owner
	objs    *tree.DirTree
	hashes  map[objKey]tree.FileSum // content hashes of the store's objects read so far
	byPath  map[string]*planItem
	Items   []*planItem
	// seconds are the items that are later names of a file, by its first
	// name (keptName), made when first asked.
	seconds      map[string][]*planItem
	still, asked bool // the disk is as its scan saw it (deletions)

	wb      WriteBack
	Files   int            // files written
	Flushes int            // flushes
	Changes []syncrec.Path // the record's new entries
}

// Run does the write-back; w.Changes is then what the record gets.
func (w *PathWrite) Run(ctx context.Context) (WriteBack, error) {
	w.wb = WriteBack{Folder: w.Folder}
	w.diskfd, w.hashes, w.byPath = -1, map[objKey]tree.FileSum{}, map[string]*planItem{}
	rootfd, err := openFolder(w.Folder, w.Bound)
	if err != nil {
		return w.wb, err
	}
	w.a = applier{d: w, tgt: newDirs(rootfd), store: w.S.Dir, temps: folderTemps, durable: true}
	defer w.close()
	var f unix.Stat_t
	unix.Fstat(rootfd, &f)
	w.rootDev, w.owner = uint64(f.Dev), newOwner(f.Uid, f.Gid)
	if w.Disk != "" {
		w.diskfd, _ = tree.OpenRetry(w.Disk, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	left, err := folderTemps.clean(w.S.Dir, rootfd)
	if err != nil {
		return w.wb, err
	}
	for _, p := range left {
		w.note(p, "a temporary file an interrupted write-back left could not be removed")
	}
	cands, err := diskChanges(w.S, w.Rec, w.Id)
	if err != nil {
		return w.wb, err
	}
	if err := w.plan(ctx, cands); err != nil {
		return w.wb, err
	}
	w.a.placing = func() {
		if w.Files, w.Flushes = w.a.files, w.a.flushes; w.Placing != nil {
			w.Placing(w)
		}
	}
	if err := w.a.run(ctx); err != nil {
		return w.wb, err
	}
	w.Changes = make([]syncrec.Path, 0, len(w.Items))
	for _, it := range w.Items { // the record's entries; what the folder kept in its favour
		w.Changes = append(w.Changes, it.entry())
		if it.Outside {
			w.wb.KeptOutside++
		}
		if it.DeletedOutside {
			w.wb.DeletedOutside = append(w.wb.DeletedOutside, it.Path)
		}
	}
	return w.wb, nil
}

func (w *PathWrite) close() {
	w.a.tgt.close()
	if w.diskfd >= 0 {
		unix.Close(w.diskfd)
	}
	if w.objs != nil {
		w.objs.Close()
	}
}

// plan looks at each candidate in the folder and decides (plan.go).
func (w *PathWrite) plan(ctx context.Context, cands []candidate) error {
	w.Items = make([]*planItem, 0, len(cands))
	for i := range cands {
		if err := ctx.Err(); err != nil {
			return err
		}
		w.a.tgt.trim(maxOpenDirs)
		c := &cands[i]
		it := &planItem{Item: Item{Path: c.path}, D: c.d}
		if b, ok := w.Bases[c.path]; ok {
			it.Base, it.LastF = b.D, b.F
		} else if c.rec != nil {
			it.Base, it.LastF = c.rec.D, c.rec.F
		}
		f, err := w.look(c.path, it.LastF)
		if err != nil {
			return fmt.Errorf("read %s: %w", filepath.Join(w.Folder, c.path), err)
		}
		it.F = f
		if c.d != nil {
			if c.src == nil {
				return fmt.Errorf("the disk's %s is a hard link to %s, which the snapshot lacks: %w", c.path, c.d.HardLink, snapstore.ErrBadManifest)
			}
			it.Src = c.src
			if it.DS, err = w.diskSideOf(c.d, c.src, it.Base); err != nil {
				return err
			}
		}
		it.decide()
		w.Items = append(w.Items, it)
		w.a.items = append(w.a.items, &it.Item)
		w.byPath[it.Path] = it
	}
	return nil
}

// look finds path rel in the folder, with its content hash: the record's
// when the file's identity is the one recorded (last), else read.
func (w *PathWrite) look(rel string, last *syncrec.Side) (*fstate, error) {
	dir, name := tree.SplitRel(rel)
	pfd := w.a.tgt.root
	if rel == "." {
		name = "."
	} else if fd, err := w.a.tgt.at(dir); err != nil {
		return nil, nil // its folder is not there (or not a folder): neither is it
	} else {
		pfd = fd
	}
	st, flags, err := tree.LstatAt(pfd, name)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f := &fstate{E: tree.FsEntry{Rel: rel, St: st}, flags: flags}
	switch {
	case f.E.IsDir() && uint64(st.Dev) != w.rootDev:
		return nil, fmt.Errorf("%s: %w (never entered)", rel, tree.ErrMountInside)
	case f.E.IsLink():
		if f.E.Link, err = tree.ReadlinkAt(pfd, name); err != nil {
			return nil, err
		}
		f.hash = syncrec.LinkHash(f.E.Link)
	case f.E.IsReg():
		if id := tree.IdentOf(&st); last != nil && last.Ident != nil && *last.Ident == id && !last.Hash.None() {
			f.hash = last.Hash
			break
		}
		fd, err := tree.OpenFileAt(pfd, name, &st)
		if err != nil {
			// Replaced while looked at (an editor saving), or unreadable:
			// a version the record cannot vouch for, so the folder's is
			// kept and the disk's, if it changed, is the copy.
			f.hash = unknownHash
			return f, nil
		}
		f.hash, err = tree.HashFd(fd)
		unix.Close(fd)
		if err != nil {
			return nil, err
		}
	}
	return f, nil
}

// unknownHash stands for the contents of a folder file that could not be
// read: never any version's.
var unknownHash = sha256.Sum256([]byte("rambar: a file that could not be read"))

// diskSideOf is d's side with its content hash (src's bytes): the
// record's when the object is the record's (objects never change), else
// read from the store.
func (w *PathWrite) diskSideOf(d, src *tree.Entry, base *syncrec.Side) (*syncrec.Side, error) {
	s := syncrec.DiskSide(d, src)
	if d.Kind != tree.KindFile {
		return s, nil
	}
	if base != nil && base.Kind == tree.KindFile && base.Obj == s.Obj && base.Size == s.Size && !s.Obj.None() && !base.Hash.None() {
		s.Hash = base.Hash
		return s, nil
	}
	key := objKey{src.Obj, src.Size}
	if h, ok := w.hashes[key]; ok && !src.Obj.None() {
		s.Hash = h
		return s, nil
	}
	h, err := w.diskHash(src)
	if err != nil {
		return nil, fmt.Errorf("read the disk's %s: %w", d.Path, err)
	}
	w.hashes[key], s.Hash = h, h
	return s, nil
}

// objKey names a file's bytes in the store: a packed object's name is
// its start, which an empty file shares with the file after it.
type objKey struct {
	obj  tree.ObjName
	size int64
}

// openObj opens e's bytes in the store.
func (w *PathWrite) openObj(e *tree.Entry) (int, tree.ObjRef, error) {
	ref, err := snapstore.ObjRefOf(*e)
	if err != nil {
		return -1, ref, err
	}
	if w.objs == nil {
		if w.objs, err = tree.OpenTree(w.S.Path("objects")); err != nil {
			return -1, ref, err
		}
	}
	fd, err := w.objs.OpenFile(ref.Rel)
	return fd, ref, err
}

// diskHash is the SHA-256 of e's bytes as the store has them.
func (w *PathWrite) diskHash(e *tree.Entry) (tree.FileSum, error) {
	fd, ref, err := w.openObj(e)
	if err != nil {
		return tree.FileSum{}, err
	}
	defer unix.Close(fd)
	if !ref.Packed && e.Extents == nil {
		return tree.HashFd(fd)
	}
	h := tree.NewHash()
	if e.Extents == nil {
		if err := tree.ReadAll(fd, ref.Off, ref.Size, h); err != nil {
			return tree.FileSum{}, err
		}
		return tree.SumOf(h), nil
	}
	// A sparse file: its object holds the data ranges one after another;
	// the holes between are zeros.
	pos, from := int64(0), ref.Off
	for _, x := range e.Extents {
		if err := tree.Zeros(h, x.Off-pos); err != nil {
			return tree.FileSum{}, err
		}
		if err := tree.ReadAll(fd, from, x.Len, h); err != nil {
			return tree.FileSum{}, err
		}
		pos, from = x.Off+x.Len, from+x.Len
	}
	if err := tree.Zeros(h, e.Size-pos); err != nil {
		return tree.FileSum{}, err
	}
	return tree.SumOf(h), nil
}
