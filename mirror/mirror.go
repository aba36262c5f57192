package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"time"

	"rambar/ramdisk"
)

// ErrIncomplete: a Mirror disk whose load did not finish; writing it back
// would cut its folder down. It is an ErrRefused.
var ErrIncomplete = fmt.Errorf("%w: its load did not finish", ErrRefused)

// Rules are the rules a mirror folder is checked against now (create: a
// missing folder passes).
func (k *Keeper) Rules(create bool) FolderRules { return k.folderRules(create, "") }

// folderRules are the rules a mirror folder is checked against now.
func (k *Keeper) folderRules(create bool, mountPoint string) FolderRules {
	r := FolderRules{Data: k.Data, Home: k.Home, Homes: sudoHome(), Create: create}
	if k.RAMDisks != nil {
		r.RAMDisks = k.RAMDisks()
	}
	if mountPoint != "" {
		r.RAMDisks = append(r.RAMDisks, mountPoint)
	}
	return r
}

// setupFolder checks a mirror folder for Setup, makes it when asked (owned
// by the invoking user under sudo), and refuses one another disk mirrors.
func (k *Keeper) setupFolder(name string, o Options) error {
	if err := CheckFolder(o.MirrorPath, k.folderRules(o.CreateFolder, o.MountPoint)); err != nil {
		return err
	}
	if err := k.CheckClaim(name, o.MirrorPath); err != nil {
		return err
	}
	if _, err := os.Lstat(o.MirrorPath); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(o.MirrorPath, 0o755); err != nil {
			return noSpace(fmt.Errorf("make mirror folder: %w", err))
		}
		if os.Geteuid() == 0 {
			u, uerr := strconv.Atoi(os.Getenv("SUDO_UID"))
			g, gerr := strconv.Atoi(os.Getenv("SUDO_GID"))
			if uerr == nil && gerr == nil {
				os.Lchown(o.MirrorPath, u, g)
			}
		}
	}
	return nil
}

// loadMirror fills a fresh disk from its folder. The record of a finished
// load is written last: until then the disk is incomplete, and is never
// written back.
func (k *Keeper) loadMirror(ctx context.Context, st State, v ramdisk.Volume, progress ProgressFunc) (Result, error) {
	if err := CheckFolder(st.MirrorPath, k.folderRules(false, v.MountPoint)); err != nil {
		return Result{}, err
	}
	if err := k.claim(st, v); err != nil {
		return Result{}, err
	}
	l := &folderLoad{folder: st.MirrorPath, disk: v.MountPoint, copyFile: k.CopyFile}
	if err := l.run(ctx, progress); err != nil {
		return Result{}, fmt.Errorf("load %s into %s: %w", st.MirrorPath, v.Name, err)
	}
	// The folder's state becomes the first snapshot: from now on the
	// store knows it and saves are incremental.
	s := k.store(st)
	res, err := s.save(ctx, v.MountPoint, st.ID, st.Snapshots, nil)
	if err != nil {
		return res, err
	}
	m, err := s.manifest(res.Snapshot)
	if err != nil {
		return res, err
	}
	paths := map[string]*syncPath{}
	for p, f := range l.sides {
		paths[p] = &syncPath{Path: p, F: f}
	}
	for _, e := range m.Entries {
		sp := paths[e.Path]
		if sp == nil {
			sp = &syncPath{Path: e.Path}
			paths[e.Path] = sp
		}
		d := &side{Kind: e.Kind, Mode: e.Mode, Obj: e.Obj.String()}
		if sp.F != nil && sp.F.Kind == e.Kind {
			d.Hash = sp.F.Hash // the bytes just copied
		}
		if e.Kind == KindSymlink {
			d.Hash = linkHash(e.Link)
		}
		sp.D = d
	}
	rec := sortedRecord(paths)
	rec.DiskID, rec.Folder, rec.Snapshot = st.ID, st.MirrorPath, res.Snapshot
	if err := writeSyncRecord(st.Backing, rec); err != nil {
		return res, fmt.Errorf("load %s: %w", st.MirrorPath, err)
	}
	res.Files, res.Bytes = l.files, l.bytes
	res.NotKept = append(l.notKept, res.NotKept...)
	return res, nil
}

// startLoad marks a Mirror disk incomplete before anything is loaded (the
// head, then the record: both say incomplete).
func (k *Keeper) startLoad(st State) error {
	return writeSyncRecord(st.Backing, &syncRecord{DiskID: st.ID, Folder: st.MirrorPath})
}

// emptyLoadRecord records a Mirror disk as loaded from an empty folder:
// its first write-back writes the whole disk into the folder (a disk that
// began without --mirror: rambar keep --mirror).
func emptyLoadRecord(st State) error {
	return writeSyncRecord(st.Backing, &syncRecord{DiskID: st.ID, Folder: st.MirrorPath, Complete: true})
}

// loadedRecord is the record of a finished load of this disk, or
// ErrIncomplete saying how to reload.
func (k *Keeper) loadedRecord(st State) (*syncRecord, error) {
	rec, err := readSyncRecord(st.Backing)
	if err != nil {
		return nil, err
	}
	if rec == nil || !rec.Complete || rec.DiskID != st.ID || rec.Folder != st.MirrorPath {
		return nil, fmt.Errorf("%w: %s was not completely loaded from %s, so writing it back would cut the folder down; "+
			"the folder is untouched. Reload it: rambar eject %s --no-save, then create it again with --mirror %s",
			ErrIncomplete, st.Name, st.MirrorPath, st.Name, st.MirrorPath)
	}
	return rec, nil
}

// writeBack writes snapshot id of a Mirror disk into its folder, keeping
// what changed there outside RAMBar (see plan), against rec, the last
// sync's record. The store lock is held. A nil rec (a forced save of an
// incomplete load) takes nothing in the folder for unchanged, so nothing
// of it is replaced or deleted (every difference is a conflict with both
// versions kept).
func (k *Keeper) writeBack(ctx context.Context, st State, s *store, id string, rec *syncRecord) (*WriteBack, error) {
	if err := CheckFolder(st.MirrorPath, k.folderRules(false, "")); err != nil {
		return nil, fmt.Errorf("%w (the disk's state is kept in snapshot %s in %s)", err, id, st.Backing)
	}
	m, err := s.manifest(id)
	if err != nil {
		return nil, err
	}
	var objs *dirTree // opened at the first file: an empty tree has no objects folder
	defer func() {
		if objs != nil {
			objs.close()
		}
	}()
	openObj := func(e Entry) (int, objRef, error) {
		ref, err := objRefOf(e)
		if err != nil {
			return -1, ref, err
		}
		if objs == nil {
			if objs, err = openTree(s.path("objects")); err != nil {
				return -1, ref, err
			}
		}
		fd, err := objs.openFile(ref.Rel)
		return fd, ref, err
	}
	w := &folderWrite{folder: st.MirrorPath, entries: m.Entries, openObj: openObj, rec: rec, at: time.Now(), staged: k.staged}
	wb, next, err := w.run(ctx)
	if err != nil {
		return nil, err
	}
	next.DiskID, next.Folder, next.Snapshot = st.ID, st.MirrorPath, id
	if err := writeSyncRecord(st.Backing, next); err != nil {
		return &wb, fmt.Errorf("wrote %s back, but recording it failed: %w", st.MirrorPath, err)
	}
	return &wb, nil
}

// behind reports whether a Mirror disk's folder lacks the current snapshot
// (a write-back failed or never ran).
func (k *Keeper) behind(st State, cur string) bool {
	h, ok := readSyncHead(st.Backing)
	return !ok || !h.Complete || h.Snapshot != cur || h.DiskID != st.ID || h.Folder != st.MirrorPath
}

// sudoHome is the invoking user's home under sudo (HOME is root's there).
func sudoHome() []string {
	name := os.Getenv("SUDO_USER")
	if name == "" || os.Geteuid() != 0 {
		return nil
	}
	if u, err := user.Lookup(name); err == nil && u.HomeDir != "" {
		return []string{u.HomeDir}
	}
	return nil
}
