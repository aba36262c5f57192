package foldersync

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"rambar/syncrec"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// The folder's side of a refresh: a walk of the mirror folder through
// descriptors (tree.WalkFolder), merged in path order with the sync
// record, that finds each path the folder changed since the record by
// comparing its identity (inode, ctime, mtime, size, mode) with the
// record's folder side. Files are not read here; a refresh hashes those
// whose identity changed, and FolderChanges only counts them.

// change is a path the folder changed since the record.
type change struct {
	path string
	e    *tree.FsEntry // the folder's entry now; nil: deleted in the folder
	f, d *syncrec.Side // the record's folder and disk sides (nil: none)
	// pending: the record says the folder lacks the disk's version.
	pending bool
	// same: not a change; a file with several names the folder did not
	// change, reported so that a new name of it is made a link on the disk.
	same bool
	// vanished: a folder gone (removed, replaced) by the time the walk read
	// it; what it holds is unknown, so the record's paths in it are not
	// reported: a change to look at again, never deletions.
	vanished bool
}

// skips says which folder paths never go onto the disk, with what they
// hold (the load's and the refresh's one rule): the names the disk's top
// keeps for itself (reserved), temporary names (temps.go), and git's lock
// files (gitstate.go); unloadable kinds are skipped by the walks.
func skips(reserved func(string) bool) func(rel string) bool {
	return func(rel string) bool {
		if rel == "." {
			return false
		}
		first, _, _ := strings.Cut(rel, "/")
		if first == tree.MarkerName || reserved != nil && reserved(first) {
			return true
		}
		for p := rel; p != "."; p, _ = tree.SplitRel(p) {
			_, name := tree.SplitRel(p)
			if isTempName(name) || gitLock(p) {
				return true
			}
		}
		return false
	}
}

// skipped is what a walk returns for an entry it leaves out (not entered).
func skipped(e *tree.FsEntry) error {
	if e.IsDir() {
		return tree.ErrSkipDir
	}
	return nil
}

// scan lists the folder's changes since the record (and notes the
// unchanged first names of files of several names); a folder gone while
// the walk read it is looked at again by the next refresh. A folder that
// holds nothing while the disk holds files is refused (ErrEmptyFolder):
// put something in the folder to mean it, or eject the disk without
// saving and make it again.
func (r *Refresh) scan(ctx context.Context) ([]*change, error) {
	var changes []*change
	r.firsts = map[[2]uint64]change{}
	err := scanFolder(r.src.root, r.Rec, skips(tree.ReservedIn(r.Disk)), func(c *change) error {
		if c.vanished {
			return ctx.Err()
		}
		cp := *c
		if !c.same {
			changes = append(changes, &cp)
		} else if k := inodeOf(c.e); r.firsts[k].e == nil {
			r.firsts[k] = cp
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.Folder, err)
	}
	if len(changes) == 0 {
		return nil, nil
	}
	names, err := tree.ReadNames(r.src.root)
	if err != nil || len(names) > 0 {
		return changes, err
	}
	disk, err := tree.ReadNames(r.a.tgt.root)
	reserved := tree.ReservedIn(r.Disk)
	if slices.ContainsFunc(disk, func(n string) bool { return !reserved(n) }) {
		return nil, ErrEmptyFolder
	}
	return changes, err
}

// index reads the index's identities of the paths looked at: those of the
// save before the refresh.
func (r *Refresh) index(changes []*change) error {
	x := r.S.LoadIndex()
	if x == nil || !x.Exact || x.Snapshot != r.Rec.Snapshot || x.DiskID != r.Rec.DiskID {
		return errors.New("the save before it left no index of the disk matching its folder's record; nothing was taken (save it, then try again)")
	}
	want := make(map[string]bool, len(changes)+len(r.firsts))
	for _, c := range changes {
		want[c.path] = true
	}
	for _, c := range r.firsts {
		want[c.path] = true
	}
	r.idx = make(map[string]tree.Ident, len(changes))
	if err := x.Walk(func(p []byte, id tree.Ident) bool {
		if want[string(p)] {
			r.idx[string(p)] = id
		}
		return true
	}); err != nil {
		return fmt.Errorf("read the index: %w", err)
	}
	return nil
}

// scanFolder walks the folder rootfd and calls fn with each path it
// changed since rec, in path order (a folder before what it holds; a
// path deleted in the folder where it would have been), and with each
// unchanged file that has several names (same). A folder that vanished
// while the walk read it is one change (vanished), with nothing reported
// of what the record has in it.
func scanFolder(rootfd int, rec *syncrec.Record, skip func(string) bool, fn func(*change) error) error {
	next, stop := iter.Pull(recordSeq(rec))
	defer stop()
	r, more := next()
	// flush reports the record's paths before p (all of them when p is
	// ""): the folder lacks them.
	flush := func(p string) error {
		for more && (p == "" || tree.PathLess(r.Path, p)) {
			// The folder lacks it: it had it at the record, or only the
			// disk had it then (the folder deleted it before a write-back).
			if (r.F != nil || r.D != nil && !r.Pending) && !skip(r.Path) && r.Path != "." {
				if err := fn(&change{path: r.Path, f: r.F, d: r.D, pending: r.Pending}); err != nil {
					return err
				}
			}
			r, more = next()
		}
		return nil
	}
	err := tree.WalkFolder(rootfd, func(_ int, _ string, e *tree.FsEntry) error {
		if err := flush(e.Rel); err != nil {
			return err
		}
		c := &change{path: e.Rel, e: e}
		if more && r.Path == e.Rel {
			c.f, c.d, c.pending = r.F, r.D, r.Pending
			r, more = next()
		}
		if e.Vanished {
			// Listed, then gone before it was read: neither it nor what the
			// record has in it is taken as changed or deleted now.
			for more && strings.HasPrefix(r.Path, e.Rel+"/") {
				r, more = next()
			}
			if skip(e.Rel) {
				return nil
			}
			c.vanished = true
			return fn(c)
		}
		if skip(e.Rel) || unloadable(e) != "" {
			return skipped(e)
		}
		if !folderChanged(e, c.f) {
			if !e.IsReg() || e.St.Nlink < 2 {
				return nil
			}
			c.same = true
		}
		return fn(c)
	})
	if err != nil {
		return err
	}
	return flush("")
}

// recordSeq yields rec's paths in order (copies: a block is reused).
func recordSeq(rec *syncrec.Record) iter.Seq[syncrec.Path] {
	return func(yield func(syncrec.Path) bool) {
		errStop := errors.New("stop")
		rec.Each(func(p *syncrec.Path) error {
			if !yield(*p) {
				return errStop
			}
			return nil
		})
	}
}

// folderChanged: the folder's entry e is not the version the record's
// folder side f describes, as far as its identity tells (a file whose
// identity changed may still hold the same bytes).
func folderChanged(e *tree.FsEntry, f *syncrec.Side) bool {
	if f == nil {
		return true
	}
	fs := (&fstate{E: *e}).Side()
	if fs.Kind != f.Kind {
		return true
	}
	switch {
	case e.IsReg():
		return f.Ident == nil || *f.Ident != tree.IdentOf(&e.St)
	case e.IsLink():
		return syncrec.LinkHash(e.Link) != f.Hash
	}
	return fs.Mode != f.Mode // a folder, a FIFO
}

// FolderChanges counts the paths of a Mirror folder changed since the
// record and not on the disk mounted at disk: the changes kept in the
// folder that a refresh takes. It walks the folder's metadata and reads
// the record, no file; a file whose identity alone changed (touch, a new
// hard link) counts until a refresh finds its bytes unchanged.
func FolderChanges(folder, disk string, rec *syncrec.Record) (int, error) {
	rootfd, err := tree.OpenDirPath(folder)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", folder, err)
	}
	defer unix.Close(rootfd)
	n := 0
	err = scanFolder(rootfd, rec, skips(tree.ReservedIn(disk)), func(c *change) error {
		if !c.same {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", folder, err)
	}
	return n, nil
}

// Bases are, by path, the versions both sides hold of what the refresh
// made, for the write-back of the save that follows it (PathWrite.Bases):
// the folder's version it looked at (with that file's identity) on both
// sides; none for a path it removed. That write-back then starts from
// what the refresh left, not from the record before it, so what the
// folder changed again meanwhile (a folder removed and made again by an
// install, a file rewritten) is a change kept in the folder, which the
// next refresh takes, never one the write-back undoes or keeps twice. The
// disk's side is the bytes it got: a folder file that changed while it
// was copied may have given others than it held at the look, and its
// identity then differs from the folder's side, so the next refresh
// takes it again; the disk's bytes are never written back over it.
func (r *Refresh) Bases() map[string]syncrec.Path {
	diskfd, err := tree.OpenDirPath(r.Disk)
	if err != nil {
		return nil // the record's versions stand
	}
	defer unix.Close(diskfd)
	out := map[string]syncrec.Path{}
	for _, it := range r.items {
		switch {
		case it.failed || it.op == opNone:
		case it.op == opRemove:
			// Gone from the disk: removed, or its folder was. A removal
			// the second look put off (the folder has the path again)
			// left the disk's version, and the record's stands for it.
			if _, _, err := lookBeneath(diskfd, it.Path); errors.Is(err, unix.ENOENT) {
				out[it.Path] = syncrec.Path{Path: it.Path}
			}
		case it.took && it.fs != nil:
			f := *it.fs
			f.Ident = nil
			d := &syncrec.Side{Kind: f.Kind, Mode: f.Mode, Hash: f.Hash}
			if it.e.IsReg() {
				f.Ident = new(tree.IdentOf(&it.e.St))
				if it.sum != (tree.FileSum{}) {
					d.Hash = it.sum // the bytes copied
				}
			}
			out[it.Path] = syncrec.Path{Path: it.Path, F: &f, D: d}
		}
	}
	return out
}

// Settle records, for each path the refresh looked at whose folder
// version the disk now holds (taken, or the same bytes and mode found on
// both sides) by rec (the record after the save that follows a refresh),
// the folder's identity as its folder side: it no longer counts as a
// change kept in the folder, and is not read again. A path deleted on
// both sides leaves the record.
func (r *Refresh) Settle(storeDir string, rec *syncrec.Record) error {
	if len(r.items) == 0 {
		return nil
	}
	rootfd, err := tree.OpenDirPath(r.Folder)
	if err != nil {
		return err
	}
	defer unix.Close(rootfd)
	var changes []syncrec.Path
	for _, it := range r.items {
		if it.failed {
			continue
		}
		sp, err := rec.Get(it.Path)
		if err != nil {
			return err
		}
		if sp == nil || sp.Pending {
			continue
		}
		if f := settled(rootfd, it, sp.D); f != nil || it.e == nil && sp.D == nil {
			if it.e != nil && sameFolderSide(f, sp.F) {
				continue // recorded so already (the save's write-back)
			}
			changes = append(changes, syncrec.Path{Path: it.Path, F: f, D: sp.D})
		}
	}
	if len(changes) == 0 {
		return nil
	}
	return syncrec.Update(storeDir, rec, rec.Head, changes)
}

// settled is the record's new folder side of it, when the folder still
// holds the version the refresh looked at and the disk's side d holds the
// same bytes and mode; nil otherwise.
func settled(rootfd int, it *ritem, d *syncrec.Side) *syncrec.Side {
	if it.e == nil || it.fs == nil || d == nil || it.fs.Differs(d) {
		return nil
	}
	st, _, err := lookBeneath(rootfd, it.Path)
	if err != nil || tree.IdentOf(&st) != tree.IdentOf(&it.e.St) {
		return nil // changed again: the next refresh looks at it
	}
	f := *it.fs
	f.Ident = nil
	if it.e.IsReg() && !f.Hash.None() {
		f.Ident = new(tree.IdentOf(&st))
	}
	return &f
}

// sameFolderSide: a and b are the same folder side (kind, mode, content,
// identity).
func sameFolderSide(a, b *syncrec.Side) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Mode != b.Mode || a.Hash != b.Hash || (a.Ident == nil) != (b.Ident == nil) {
		return false
	}
	return a.Ident == nil || *a.Ident == *b.Ident
}
