package keeper

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"rambar/foldersync"
	"rambar/snapshot"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// ErrNotMirror: the disk has no folder to take changes from.
var ErrNotMirror = errors.New("it is not a Mirror disk")

// Refreshed says what a refresh of a Mirror disk did.
type Refreshed struct {
	// Folder is the mirror folder the changes came from.
	Folder string `json:"folder"`
	// Taken counts the paths whose folder version (or metadata) is now on
	// the disk: added, changed, or made a hard link in the folder.
	Taken int `json:"taken"`
	// Removed counts the paths the folder deleted that are now deleted on
	// the disk.
	Removed int `json:"removed"`
	// Left lists the paths the folder changed that the disk also changed
	// while the refresh ran: the disk kept its version, and the save after
	// the refresh kept both (After.Folder.Conflicts says where).
	Left []string `json:"left,omitempty"`
	// NotKept names what could not be taken onto the disk, and why.
	NotKept []tree.NotKept `json:"not_kept,omitempty"`
	// Before is the save before the refresh (the disk's own changes went
	// into the folder first, conflicts kept both ways); After, the save of
	// the refreshed disk.
	Before Result `json:"before"`
	After  Result `json:"after"`
	// Took is how long the whole refresh took, both saves included.
	Took time.Duration `json:"took_ns"`
}

// Conflicts are the paths both saves of the refresh kept both versions of.
func (r Refreshed) Conflicts() []foldersync.Conflict {
	var out []foldersync.Conflict
	for _, res := range []Result{r.Before, r.After} {
		if res.Folder != nil {
			out = append(out, res.Folder.Conflicts...)
		}
	}
	return out
}

// Refresh brings the changes made in a Mirror disk's folder since the
// disk and the folder were last brought together onto the disk, by the
// sync record (refreshapply.go), under the store's lock:
//
//  1. a save: the disk's own changes are written into the folder first,
//     a path changed on both sides kept both ways as every write-back
//     does (plan.go), so the record's disk side is the snapshot just
//     made;
//  2. each path the folder changed since the record, found by a walk of
//     the folder compared by identity (files hashed only where it
//     changed), is put on the disk where the disk still holds the
//     record's version (its identity is the index's), atomically;
//  3. a save of the refreshed disk: its write-back finds both sides
//     changed to the same content, which is agreement, and writes nothing
//     for them; the record then says both sides agree.
//
// A refresh killed at any point leaves each disk path its old version or
// the folder's, and at worst temporary names the next save or refresh
// removes (refreshjournal.go).
func (k *Keeper) Refresh(ctx context.Context, v ramdisk.Volume, progress tree.ProgressFunc) (out Refreshed, err error) {
	start := time.Now()
	st, err := k.State(v.Name)
	if err != nil {
		return Refreshed{}, err
	}
	if st.Mode != ramdisk.Mirror {
		return Refreshed{}, fmt.Errorf("refresh %s: %w: its contents are kept in RAMBar's store, not in a folder", v.Name, ErrNotMirror)
	}
	if st.InPlace {
		return Refreshed{}, fmt.Errorf("refresh %s: %w: it is in place, so %s is the disk itself and holds no changes of its own", v.Name, ErrNotMirror, st.MirrorPath)
	}
	out.Folder = st.MirrorPath
	defer func() { out.Took = time.Since(start) }()
	s := k.store(st)
	unlock, err := s.Lock(ctx)
	if err != nil {
		return out, err
	}
	defer unlock()
	if out.Before, err = k.saveHeld(ctx, v, st, s, SaveOptions{Progress: progress}); err != nil {
		return out, fmt.Errorf("refresh %s: the save before it failed, so nothing was taken from %s: %w", v.Name, st.MirrorPath, err)
	}
	if left := cleanDiskTemps(st, v.MountPoint); len(left) > 0 {
		return out, fmt.Errorf("refresh %s: what an interrupted refresh left on the disk could not be removed: %v", v.Name, left)
	}
	items, err := k.takeChanges(ctx, st, s, v, &out, progress)
	if err != nil {
		return out, err
	}
	if out.Taken+out.Removed == 0 && len(out.Left) == 0 {
		return out, k.settle(st, items)
	}
	if out.After, err = k.saveHeld(ctx, v, st, s, SaveOptions{Progress: progress}); err != nil {
		return out, fmt.Errorf("refresh %s: took %d changes from %s, but the save after it failed (the next save finishes it): %w",
			v.Name, out.Taken+out.Removed, st.MirrorPath, err)
	}
	return out, k.settle(st, items)
}

// takeChanges is the refresh's second step: the folder's changes onto the
// disk at v, against the record the save before it wrote.
func (k *Keeper) takeChanges(ctx context.Context, st State, s *snapshot.Store, v ramdisk.Volume, out *Refreshed, progress tree.ProgressFunc) ([]*ritem, error) {
	if err := foldersync.CheckFolder(st.MirrorPath, k.folderRules(false, "")); err != nil {
		return nil, fmt.Errorf("refresh %s: %w; nothing was taken", v.Name, err)
	}
	rec, err := k.loadedRecord(st)
	if err != nil {
		return nil, fmt.Errorf("refresh %s: %w", v.Name, err)
	}
	defer rec.Close()
	x := s.LoadIndex()
	if x == nil || !x.Exact || x.Snapshot != rec.Snapshot || x.DiskID != st.ID {
		return nil, fmt.Errorf("refresh %s: the save before it left no index of the disk matching its folder's record; nothing was taken (save it, then try again)", v.Name)
	}
	r := &refresher{folder: st.MirrorPath, s: s, out: out, rootfd: -1, diskfd: -1, decided: k.refreshing}
	if r.rootfd, err = tree.OpenDirPath(st.MirrorPath); err != nil {
		return nil, fmt.Errorf("refresh %s: %w", v.Name, err)
	}
	defer unix.Close(r.rootfd)
	var pst, fst unix.Stat_t
	if unix.Stat(filepath.Dir(st.MirrorPath), &pst) == nil && unix.Fstat(r.rootfd, &fst) == nil && pst.Dev != fst.Dev {
		return nil, fmt.Errorf("refresh %s: %s is a mount point of another file system; nothing is taken from it", v.Name, st.MirrorPath)
	}
	if r.diskfd, err = tree.OpenRetry(v.MountPoint, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
		return nil, fmt.Errorf("refresh %s: %w", v.Name, err)
	}
	defer unix.Close(r.diskfd)
	var changes []*fchange
	r.firsts = map[[2]uint64]fchange{}
	err = scanFolder(r.rootfd, rec, refreshSkips(tree.ReservedIn(v.MountPoint)), func(c *fchange) error {
		if c.vanished {
			return ctx.Err() // changed while the walk read it: the next refresh looks again
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
		return nil, fmt.Errorf("refresh %s: read %s: %w", v.Name, st.MirrorPath, err)
	}
	if err := refuseEmptying(r.rootfd, r.diskfd, v.MountPoint, changes); err != nil {
		return nil, fmt.Errorf("refresh %s: %w", v.Name, err)
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
		return nil, fmt.Errorf("refresh %s: read the index: %w", v.Name, err)
	}
	if err := r.run(ctx, changes, progress); err != nil {
		return nil, fmt.Errorf("refresh %s from %s: %w", v.Name, st.MirrorPath, err)
	}
	return r.items, nil
}

// settle records, for each path the refresh looked at whose folder
// version the disk now holds (taken, or the same bytes and mode found on
// both sides), the folder's identity as its folder side: it no longer
// counts as a change kept in the folder, and is not read again. A path
// deleted on both sides leaves the record.
func (k *Keeper) settle(st State, items []*ritem) error {
	if len(items) == 0 {
		return nil
	}
	rec, err := k.loadedRecord(st)
	if err != nil {
		return err
	}
	defer rec.Close()
	rootfd, err := tree.OpenDirPath(st.MirrorPath)
	if err != nil {
		return err
	}
	defer unix.Close(rootfd)
	var changes []foldersync.SyncPath
	for _, it := range items {
		if it.act == rLeft {
			continue
		}
		sp, err := rec.Get(it.path)
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
			changes = append(changes, foldersync.SyncPath{Path: it.path, F: f, D: sp.D})
		}
	}
	if len(changes) == 0 {
		return nil
	}
	if err := foldersync.UpdateRecord(st.Backing, rec, rec.SyncHead, changes); err != nil {
		return fmt.Errorf("refreshed %s, but recording it failed (the next refresh looks again): %w", st.Name, err)
	}
	return nil
}

// settled is the record's new folder side of it, when the folder still
// holds the version the refresh looked at and the disk's side d holds the
// same bytes and mode; nil otherwise.
func settled(rootfd int, it *ritem, d *foldersync.Side) *foldersync.Side {
	if it.e == nil || it.fs == nil || d == nil || !it.fs.SameContent(d) {
		return nil
	}
	if it.fs.Kind != tree.KindSymlink && it.fs.Kind != tree.KindDir && it.fs.Mode != d.Mode {
		return nil
	}
	st, err := lstatBeneath(rootfd, it.path)
	if err != nil || tree.IdentOf(&st) != tree.IdentOf(&it.e.St) {
		return nil // changed again: the next refresh looks at it
	}
	f := *it.fs
	f.Ident = nil
	if it.e.IsReg() && !f.Hash.None() {
		id := tree.IdentOf(&st)
		f.Ident = &id
	}
	return &f
}

// sameFolderSide: a and b are the same folder side (kind, mode, content,
// identity).
func sameFolderSide(a, b *foldersync.Side) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Mode != b.Mode || a.Hash != b.Hash || (a.Ident == nil) != (b.Ident == nil) {
		return false
	}
	return a.Ident == nil || *a.Ident == *b.Ident
}

// lstatBeneath looks at path rel of the folder rootfd without following
// a symlink on the way or at its end.
func lstatBeneath(rootfd int, rel string) (unix.Stat_t, error) {
	var st unix.Stat_t
	if rel == "." {
		return st, unix.Fstat(rootfd, &st)
	}
	dir, name := tree.SplitRel(rel)
	pfd := rootfd
	if dir != "." {
		fd, err := tree.OpenBeneath(rootfd, dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return st, err
		}
		defer unix.Close(fd)
		pfd = fd
	}
	return st, unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
}

// refuseEmptying refuses a refresh from a folder that holds nothing while
// the disk holds files, which would delete them all: an external drive
// not mounted under the folder's path leaves an empty folder there. The
// disk's files would be only in the store then; put something in the
// folder to mean it, or eject the disk without saving and make it again.
func refuseEmptying(rootfd, diskfd int, mp string, changes []*fchange) error {
	if len(changes) == 0 {
		return nil
	}
	names, err := tree.ReadNames(rootfd)
	if err != nil || len(names) > 0 {
		return err
	}
	disk, err := tree.ReadNames(diskfd)
	if err != nil {
		return err
	}
	reserved := tree.ReservedIn(mp)
	for _, n := range disk {
		if !reserved(n) {
			return fmt.Errorf("%w: the folder is empty while the disk holds files (a drive not mounted there?); "+
				"taking that would empty the disk, so nothing was taken", ErrRefused)
		}
	}
	return nil
}
