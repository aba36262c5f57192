package keeper

import (
	"errors"
	"fmt"
	"iter"
	"strings"

	"rambar/foldersync"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// The folder's side of a refresh: a walk of the mirror folder through
// descriptors (fdwalk.go), merged in path order with the sync record, that
// finds each path the folder changed since the record by comparing its
// identity (inode, ctime, mtime, size, mode) with the record's folder
// side. Files are not read here; a refresh hashes those whose identity
// changed, and FolderChanges only counts them.

// fchange is a path the folder changed since the record.
type fchange struct {
	path string
	e    *tree.FsEntry    // the folder's entry now; nil: deleted in the folder
	f, d *foldersync.Side // the record's folder and disk sides (nil: none)
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

// refreshSkips says which folder paths never go onto the disk, with what
// they hold: the names the disk's root keeps for itself (reserved), the
// write-back's and the refresh's temporary names, and git's lock files;
// unloadable kinds are skipped by the walk.
func refreshSkips(reserved func(string) bool) func(rel string) bool {
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
			if foldersync.IsTempName(name) || isRefreshTemp(name) || foldersync.GitLock(p) {
				return true
			}
		}
		return false
	}
}

// scanFolder walks the folder rootfd and calls fn with each path it
// changed since rec, in path order (a folder before what it holds; a
// path deleted in the folder where it would have been), and with each
// unchanged file that has several names (same). A folder that vanished
// while the walk read it is one change (vanished), with nothing reported
// of what the record has in it.
func scanFolder(rootfd int, rec *foldersync.Record, skip func(string) bool, fn func(*fchange) error) error {
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
				if err := fn(&fchange{path: r.Path, f: r.F, d: r.D, pending: r.Pending}); err != nil {
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
		var f, d *foldersync.Side
		pending := false
		if more && r.Path == e.Rel {
			f, d, pending = r.F, r.D, r.Pending
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
			return fn(&fchange{path: e.Rel, e: e, f: f, d: d, pending: pending, vanished: true})
		}
		if skip(e.Rel) || foldersync.Unloadable(e) != "" {
			if e.IsDir() {
				return tree.ErrSkipDir
			}
			return nil
		}
		if !folderChanged(e, f) {
			if e.IsReg() && e.St.Nlink > 1 {
				return fn(&fchange{path: e.Rel, e: e, f: f, d: d, pending: pending, same: true})
			}
			return nil
		}
		return fn(&fchange{path: e.Rel, e: e, f: f, d: d, pending: pending})
	})
	if err != nil {
		return err
	}
	return flush("")
}

// recordSeq yields rec's paths in order (copies: a block is reused).
func recordSeq(rec *foldersync.Record) iter.Seq[foldersync.SyncPath] {
	return func(yield func(foldersync.SyncPath) bool) {
		if rec == nil {
			return
		}
		errStop := errors.New("stop")
		rec.Each(func(p *foldersync.SyncPath) error {
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
func folderChanged(e *tree.FsEntry, f *foldersync.Side) bool {
	if f == nil {
		return true
	}
	fs := (&foldersync.Fstate{E: *e}).Side()
	if fs.Kind != f.Kind {
		return true
	}
	switch {
	case e.IsReg():
		return f.Ident == nil || *f.Ident != tree.IdentOf(&e.St)
	case e.IsLink():
		return foldersync.LinkHash(e.Link) != f.Hash
	}
	return fs.Mode != f.Mode // a folder, a FIFO
}

// FolderChanges counts the paths of a Mirror disk's folder changed since
// the disk and the folder were last brought together (its load, a
// write-back or a refresh) and not on the disk: the changes kept in the
// folder that `rambar refresh` takes. It walks the folder's metadata and
// reads the record, no file; a file whose identity alone changed (touch,
// a new hard link) counts until a refresh finds its bytes unchanged. It
// takes no lock; a disk that is not a Mirror disk has none.
func (k *Keeper) FolderChanges(v ramdisk.Volume) (int, error) {
	st, err := k.State(v.Name)
	if err != nil {
		return 0, err
	}
	if st.MirrorPath == "" || st.InPlace {
		return 0, nil // in place: the folder's path is the disk
	}
	rec, err := k.loadedRecord(st)
	if err != nil {
		return 0, err
	}
	defer rec.Close()
	rootfd, err := tree.OpenDirPath(st.MirrorPath)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", st.MirrorPath, err)
	}
	defer unix.Close(rootfd)
	n := 0
	err = scanFolder(rootfd, rec, refreshSkips(tree.ReservedIn(v.MountPoint)), func(c *fchange) error {
		if !c.same {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", st.MirrorPath, err)
	}
	return n, nil
}
