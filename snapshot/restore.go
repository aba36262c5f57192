package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"rambar/i18n"
	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// Restore writes snapshot id ("" = current) into dst, which must be empty
// apart from the marker. With a diskID it records the restored files'
// identities, so the next save of that disk copies nothing unchanged. It
// checks first that dst has room; nothing is written when it has not.
// Files are copied (or reflinked), never hard linked, so the disk never
// shares an inode with the store.
//
// An error before anything was written is a nothingWritten
// (ErrNothingWritten).
func (s *Store) Restore(ctx context.Context, id, dst, diskID string, progress tree.ProgressFunc) (Result, error) {
	start := time.Now()
	unlock, err := s.Lock(ctx)
	if err != nil {
		return Result{}, NothingWritten{err}
	}
	defer unlock()
	m, err := s.Resolve(id)
	if err != nil {
		return Result{}, NothingWritten{err}
	}
	id = m.ID
	u, err := s.InUse(id)
	if err != nil {
		return Result{}, NothingWritten{err}
	}
	b := Build{From: s.Path("objects"), Src: snapstore.ObjRefOf, unpackDir: s.Dir, Progress: progress, CheckSpace: true, CopyFile: s.CopyFile,
		ids: tree.NewIdents(len(m.Entries))}
	notes, err := BuildTree(ctx, m.Entries, dst, b)
	if err != nil {
		return Result{}, err
	}
	if diskID != "" {
		_ = s.WriteIndex(snapstore.RestoredIndex(id, diskID, m.Entries, b.ids))
	}
	return Result{Snapshot: id, Files: m.Files, Bytes: m.Bytes, CopiedFiles: m.Files, CopiedBytes: m.Bytes, NotKept: notes,
		Took: time.Since(start), InUse: u}, nil
}

// ErrNothingWritten: a restore failed before it wrote or removed anything
// on the disk (its snapshot could not be read, it would not fit, the disk
// holds files and Force was not given): the disk holds what it held.
var ErrNothingWritten = errors.New("nothing was written")

// NothingWritten is an error of a restore that wrote nothing; its message
// is its cause's.
type NothingWritten struct{ error }

// WroteNothing is err as the error of a restore that wrote nothing.
func WroteNothing(err error) NothingWritten { return NothingWritten{err} }

// Unwrap is the cause.
func (e NothingWritten) Unwrap() error { return e.error }

// Is makes the error ErrNothingWritten too.
func (e NothingWritten) Is(target error) bool { return target == ErrNothingWritten }

// WrapRestore is err of a restore, prefixed with what, still a
// nothingWritten when it was one.
func WrapRestore(err error, what string) error {
	if nw, ok := err.(NothingWritten); ok {
		return NothingWritten{fmt.Errorf("%s: %w", what, nw.error)}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Resolve loads snapshot id, or the current one when id is "".
func (s *Store) Resolve(id string) (*snapstore.Manifest, error) {
	if id == "" {
		cur, err := s.Current()
		if err != nil {
			return nil, err
		}
		if cur == "" {
			return nil, i18n.Errorf("restore: nothing saved yet: %w", snapstore.ErrNoSnapshot)
		}
		id = cur
	}
	m, err := s.Manifest(id)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("restore: snapshot %s: %w", id, snapstore.ErrNoSnapshot)
		}
		return nil, err
	}
	return m, nil
}

// Need is the room a restore of entries takes on the file system of dst
// (needOn, as that file system charges).
func Need(entries []tree.Entry, dst string) int64 { return needOn(entries, chargeOf(dst)) }

// needOn is the room a restore of entries takes where c says what each
// kind of path costs: each file's data rounded up to blocks (holes left
// out, a file with several hard links counted once), plus what a folder,
// a symlink, or any path costs there.
func needOn(entries []tree.Entry, c charge) int64 {
	var n int64
	for i := range entries {
		e := &entries[i]
		n += c.entry + (e.Allocated()+c.block-1)/c.block*c.block
		switch {
		case e.Kind == tree.KindDir && e.Path != ".":
			n += c.dir
		case e.Kind == tree.KindSymlink && len(e.Link) >= c.inlineLink:
			n += c.block
		}
	}
	return n
}

// charge is what a file system takes for the paths of a tree: data in
// blocks; a folder, a symlink longer than it keeps in the inode, and any
// path (beyond the inode it takes: inodesFree) in bytes.
type charge struct {
	block, dir, entry int64
	inlineLink        int
}

// otherCharge is what a file system not known better (APFS, HFS+) takes:
// a block for every path besides its data (room_linux.go has tmpfs and
// ext4).
var otherCharge = charge{block: 4096, entry: 4096, inlineLink: 1}

// inodesNeeded is how many inodes a restore of entries takes (the root is
// there; a second hard link takes none).
func inodesNeeded(entries []tree.Entry) int64 {
	var n int64
	for i := range entries {
		if entries[i].Path != "." && entries[i].HardLink == "" {
			n++
		}
	}
	return n
}

// Build says how buildTree makes a tree.
type Build struct {
	From string                                // the folder the files' bytes are read from
	Src  func(tree.Entry) (tree.ObjRef, error) // where in from each file's bytes are
	// unpackDir is where packed files are unpacked for copyFile.
	unpackDir string
	Progress  tree.ProgressFunc
	// CheckSpace refuses, before anything is written, a tree that does
	// not fit.
	CheckSpace bool
	// reuse, when it reports that the folder old holds a file identical
	// to e at e.Path, makes buildTree hard-link that file instead of
	// copying (write-back to a mirror folder links unchanged files from
	// the folder it replaces; a RAM disk never gets links).
	reuse func(e tree.Entry) bool
	old   string
	// CopyFile, when set, writes each file's data (see Keeper.CopyFile).
	CopyFile tree.CopyFunc

	fromT, toT, oldT *tree.DirTree // the folders, open while building

	// ids, when not nil, gets each made path's identity as it was once its
	// metadata was set (idents.go).
	ids *tree.Idents
}

// BuildTree recreates entries under dst through descriptors (dirTree):
// folders, then files (in parallel), then hard links, symlinks and FIFOs,
// then the folders' metadata. Nothing is made outside dst and no symlink
// is followed on the way to what is made, or read. It returns what could
// not be set (an xattr the system refused).
func BuildTree(ctx context.Context, entries []tree.Entry, dst string, b Build) (notes []tree.NotKept, err error) {
	if err := checkRoom(entries, dst, b.CheckSpace); err != nil {
		return nil, NothingWritten{err}
	}
	if b.toT, err = tree.OpenTree(dst); err != nil {
		return nil, NothingWritten{err}
	}
	defer b.toT.Close()
	b.toT.Ids = b.ids
	if hasFiles(entries) {
		if b.fromT, err = tree.OpenTree(b.From); err != nil {
			return nil, NothingWritten{err}
		}
		defer b.fromT.Close()
	}
	if b.reuse != nil {
		if b.oldT, err = tree.OpenTree(b.old); err != nil {
			b.reuse = nil
		} else {
			defer b.oldT.Close()
		}
	}
	for _, e := range entries {
		if e.Kind == tree.KindDir && e.Path != "." {
			if err := b.toT.Mkdir(e.Path); err != nil {
				return nil, fmt.Errorf("restore: %w", err)
			}
		}
	}
	if err := b.files(ctx, entries); err != nil {
		return nil, fmt.Errorf("restore into %s: %w", dst, err)
	}
	for _, e := range entries {
		if err := b.other(e); err != nil {
			return nil, fmt.Errorf("restore: %w", err)
		}
	}
	// Folders last and deepest first: filling a folder changes its time.
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; e.Kind == tree.KindDir {
			if err := b.toT.SetMetaOf(e.Path, e); err != nil {
				return nil, err
			}
		}
	}
	return b.toT.Notes, nil
}

// other makes e when it is a hard link, a symlink or a FIFO.
func (b *Build) other(e tree.Entry) error {
	switch {
	case e.Kind == tree.KindFile && e.HardLink != "":
		if err := b.toT.Link(b.toT, e.HardLink, e.Path); err != nil {
			return tree.NoSpace(fmt.Errorf("link %s to %s: %w", b.toT.Path(e.Path), e.HardLink, err))
		}
		b.toT.NoteLinked(e.Path, e.HardLink) // a new link changes the inode's ctime
	case e.Kind == tree.KindSymlink:
		if err := b.toT.Symlink(e.Link, e.Path); err != nil {
			return err
		}
		return b.toT.SetLinkMeta(e.Path, e)
	case e.Kind == tree.KindFIFO:
		if err := b.toT.Mkfifo(e.Path); err != nil {
			return err
		}
		return b.toT.SetMetaOf(e.Path, e)
	}
	return nil
}

// hasFiles reports whether entries hold a regular file with data of its own.
func hasFiles(entries []tree.Entry) bool {
	for _, e := range entries {
		if e.Kind == tree.KindFile && e.HardLink == "" {
			return true
		}
	}
	return false
}

// checkRoom refuses (when check) a tree that needs more than dst has free:
// bytes, or inodes where the file system counts them.
func checkRoom(entries []tree.Entry, dst string, check bool) error {
	need := Need(entries, dst)
	free, err := tree.FreeSpace(dst)
	if err != nil {
		return err
	}
	if check && need > free {
		return i18n.Errorf("restore into %s: %w: needs %s, %s free; nothing was written",
			dst, ramdisk.ErrNoSpace, ramdisk.Size(need).Short(), ramdisk.Size(free).Short())
	}
	if n, ok := inodesFree(dst); check && ok && inodesNeeded(entries) > n {
		return i18n.Errorf("restore into %s: %w: needs %d files and folders, room for %d; nothing was written",
			dst, ramdisk.ErrNoSpace, inodesNeeded(entries), n)
	}
	return nil
}

// files writes the regular files of entries, with a pool of workers:
// the packed ones pack by pack (restorePack: one open and sequential reads
// per pack), the others one by one.
func (b *Build) files(ctx context.Context, entries []tree.Entry) error {
	jobs, single, total, nfiles := b.plan(entries)
	clone := tree.SameDev(b.From, b.toT.Dir)
	m := tree.NewMeter(b.Progress, "restoring", total, nfiles)
	err := tree.Pool(len(jobs)+len(single), tree.Workers, func(k int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if k < len(jobs) {
			return b.restorePack(ctx, entries, jobs[k], m)
		}
		n, err := b.file(ctx, entries[single[k-len(jobs)]], clone)
		if err != nil {
			return err
		}
		m.Add(n, 1)
		return nil
	})
	m.Done()
	return err
}

// file writes the file e and returns the bytes written: a large whole
// file read with direct I/O (directCopy).
func (b *Build) file(ctx context.Context, e tree.Entry, clone bool) (int64, error) {
	if b.reuse != nil && b.reuse(e) && b.toT.Link(b.oldT, e.Path, e.Path) == nil {
		return e.Size, nil
	}
	src, err := b.Src(e)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", e.Path, err)
	}
	in, err := b.fromT.OpenFile(src.Rel)
	if err != nil {
		return 0, err
	}
	defer unix.Close(in)
	if b.CopyFile != nil {
		return e.Size, b.hooked(ctx, e, src, in)
	}
	out, cloned, chmod, err := b.createFor(e, in, clone && !src.Packed && e.Extents == nil)
	if err != nil {
		return 0, err
	}
	var n int64
	direct := false
	if cloned {
		n, chmod = e.Size, true
	} else if !src.Packed && e.Extents == nil && !e.Sparse && e.Size >= tree.DirectMin {
		n, direct, err = tree.DirectCopy(out, in, false)
	}
	if !cloned && !direct && err == nil {
		n, err = tree.RestoreData(out, in, src, e, clone)
	}
	if err == nil {
		err = b.toT.SetMeta(out, e.Path, e, chmod)
	}
	if cerr := unix.Close(out); err == nil {
		err = cerr
	}
	if err != nil {
		return n, tree.NoSpace(fmt.Errorf("copy %s to %s: %w", b.fromT.Path(src.Rel), b.toT.Path(e.Path), err))
	}
	return n, nil
}

// createFor creates the file e (a clone of in when clone and the file
// system can), with its final permission when the umask keeps it whole,
// saving a chmod; chmod reports that one is still needed.
func (b *Build) createFor(e tree.Entry, in int, clone bool) (out int, cloned, chmod bool, err error) {
	mode, chmod := createMode(e)
	out, cloned, err = b.toT.Create(e.Path, mode, in, clone)
	return out, cloned, chmod, err
}

// createMode is the mode a file for e is made with, and whether its mode
// must be set after (setuid and the like, or bits the umask would drop).
func createMode(e tree.Entry) (mode uint32, chmod bool) {
	perm := tree.FilePerm(e)
	if perm&^fs.ModePerm == 0 && uint32(perm)&tree.CreateMask == 0 {
		return uint32(perm), false
	}
	return 0o600, true
}

// hooked writes the file e with copyFile (a packed source is unpacked to
// a file of its own first), then sets its metadata.
func (b *Build) hooked(ctx context.Context, e tree.Entry, src tree.ObjRef, in int) error {
	from := b.fromT.Path(src.Rel)
	if src.Packed || e.Extents != nil {
		tmp, err := tree.Unpack(in, src, e, b.unpackDir)
		if err != nil {
			return err
		}
		defer os.Remove(tmp)
		from = tmp
	}
	// The folder it goes in is reached without a symlink: copyFile takes
	// a path.
	_, _, done, err := b.toT.Parent(e.Path)
	if err != nil {
		return err
	}
	done()
	if err := b.CopyFile(ctx, from, b.toT.Path(e.Path)); err != nil {
		return tree.NoSpace(fmt.Errorf("copy %s: %w", e.Path, err))
	}
	return b.toT.SetMetaOf(e.Path, e)
}
