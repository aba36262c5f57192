package keeper

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"time"

	"rambar/foldersync"
	"rambar/mirrorfolder"
	"rambar/snapshot"
	"rambar/syncrec"
	"rambar/tree"

	"rambar/ramdisk"
)

// CheckFolder applies the folder rules to a Mirror folder (create: a
// missing one is allowed), as Setup will (mirrorfolder.Check).
func (k *Keeper) CheckFolder(path string, create bool) error {
	return mirrorfolder.Check(path, k.folderRules(create, ""))
}

// folderRules are the rules a mirror folder is checked against now.
func (k *Keeper) folderRules(create bool, mountPoint string) mirrorfolder.Rules {
	r := mirrorfolder.Rules{Data: k.Data, Home: k.Home, Homes: sudoHome(), Create: create}
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
	if err := mirrorfolder.Check(o.MirrorPath, k.folderRules(o.CreateFolder, o.MountPoint)); err != nil {
		return err
	}
	if err := k.CheckClaim(name, o.MirrorPath); err != nil {
		return err
	}
	if o.InPlace {
		if err := CheckInPlace(o.MirrorPath, k.Home); err != nil {
			return err
		}
	}
	if _, err := os.Lstat(o.MirrorPath); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(o.MirrorPath, 0o755); err != nil {
			return tree.NoSpace(fmt.Errorf("make mirror folder: %w", err))
		}
		if inv := ramdisk.Invoking(); inv.Behind {
			os.Lchown(o.MirrorPath, inv.UID, inv.GID)
		}
	}
	return nil
}

// loadMirror fills a fresh disk from its folder. The record of a finished
// load is written last: until then the disk is incomplete, and is never
// written back.
func (k *Keeper) loadMirror(ctx context.Context, st State, v ramdisk.Volume, progress tree.ProgressFunc, follow func() *Following) (Result, error) {
	if err := mirrorfolder.Check(st.MirrorPath, k.folderRules(false, v.MountPoint)); err != nil {
		return Result{}, err
	}
	if err := k.claim(st, v); err != nil {
		return Result{}, err
	}
	dir, bound, err := k.folderDir(st)
	if err != nil {
		return Result{}, err
	}
	l := &foldersync.FolderLoad{Folder: dir, Bound: bound, Disk: v.MountPoint, CopyFile: k.CopyFile, Store: st.Backing}
	if err := l.Run(ctx, progress); err != nil {
		return Result{}, fmt.Errorf("load %s into %s: %w", st.MirrorPath, v.Name, err)
	}
	// The folder's state becomes the first snapshot: from now on the
	// store knows it and saves are incremental.
	var fw *Following
	if follow != nil {
		fw = follow()
	}
	s := k.store(st)
	sr, err := s.Save(ctx, v.MountPoint, st.ID, st.Snapshots, nil, fw.follow())
	res := Result{Result: sr}
	if err != nil {
		return res, err
	}
	m, err := s.Manifest(res.Snapshot)
	if err != nil {
		return res, err
	}
	h := syncrec.Head{DiskID: st.ID, Folder: st.MirrorPath, Snapshot: res.Snapshot, Complete: true}
	if err := syncrec.Write(st.Backing, h, nil, l.Record(m.Entries)); err != nil {
		return res, fmt.Errorf("load %s: %w", st.MirrorPath, err)
	}
	res.Files, res.Bytes = l.Files, l.Bytes
	res.NotKept = append(l.NotKept, res.NotKept...)
	fw.publish(true)
	return res, nil
}

// startLoad marks a Mirror disk incomplete before anything is loaded.
func (k *Keeper) startLoad(st State) error {
	return syncrec.Commit(st.Backing, syncrec.Head{DiskID: st.ID, Folder: st.MirrorPath}, nil)
}

// emptyLoadRecord records a Mirror disk as loaded from an empty folder:
// its first write-back writes the whole disk into the folder (a disk that
// began without --mirror: rambar keep --mirror).
func emptyLoadRecord(st State) error {
	return syncrec.Commit(st.Backing, syncrec.Head{DiskID: st.ID, Folder: st.MirrorPath, Complete: true}, nil)
}

// loadedRecord is the record of a finished load of this disk (the caller
// closes it), or ErrIncomplete saying how to reload.
func (k *Keeper) loadedRecord(st State) (*syncrec.Record, error) {
	rec, err := syncrec.Open(st.Backing)
	if errors.Is(err, syncrec.ErrDamaged) {
		return nil, damaged(st, err)
	}
	if err != nil {
		return nil, err
	}
	if rec == nil || !rec.Complete || rec.DiskID != st.ID || rec.Folder != st.MirrorPath {
		rec.Close()
		return nil, fmt.Errorf("%w: %s was not completely loaded from %s, so writing it back would cut the folder down; "+
			"the folder is untouched. Reload it: rambar eject %s --no-save, then create it again with --mirror %s",
			ErrIncomplete, st.Name, st.MirrorPath, st.Name, st.MirrorPath)
	}
	return rec, nil
}

// damaged is the refusal of a save whose sync record is damaged (err): the
// write-back could not tell the folder's changes from the disk's.
func damaged(st State, err error) error {
	return fmt.Errorf("%w: %w; the folder is untouched. `rambar save %s --force` writes the disk back into %s "+
		"keeping both versions of every path where they differ", ErrRefused, err, st.Name, st.MirrorPath)
}

// writeBack writes snapshot id of a Mirror disk (mounted at disk) into its
// folder, keeping what changed there outside RAMBar (see plan), against
// rec, the last sync's record. The store lock is held. A nil rec (a forced
// save of an incomplete load) takes nothing in the folder for unchanged,
// so nothing of it is replaced or deleted (every difference is a conflict
// with both versions kept). bases, after a refresh, stand in for rec's
// versions of what it took.
func (k *Keeper) writeBack(ctx context.Context, st State, s *snapshot.Store, id, disk string, rec *syncrec.Record, bases map[string]syncrec.Path) (*foldersync.WriteBack, error) {
	start := time.Now()
	dir, through, err := k.folderDir(st)
	if err == nil && !through {
		err = mirrorfolder.Check(st.MirrorPath, k.folderRules(false, ""))
	}
	if err != nil {
		return nil, fmt.Errorf("%w (the disk's state is kept in snapshot %s in %s)", err, id, st.Backing)
	}
	w := &foldersync.PathWrite{Folder: dir, Bound: through, Disk: disk, S: s.Store, Id: id, Rec: rec, Bases: bases, At: start, Placing: k.placing}
	wb, err := w.Run(ctx)
	defer func() { wb.Took = time.Since(start) }()
	if err != nil {
		return &wb, err
	}
	h := syncrec.Head{DiskID: st.ID, Folder: st.MirrorPath, Snapshot: id, Complete: true}
	if err := syncrec.Update(st.Backing, rec, h, w.Changes); err != nil {
		return &wb, fmt.Errorf("wrote %s back, but recording it failed: %w", st.MirrorPath, err)
	}
	foldersync.RemoveJournal(st.Backing)
	return &wb, nil
}

// WriteBackDue reports whether disk name is a Mirror disk whose folder
// lacks its last save (a write-back failed or was cut short): a save is
// due although nothing on the disk changed (Dirty says so too; a change
// feed cannot).
func (k *Keeper) WriteBackDue(name string) bool {
	st, err := k.State(name)
	if err != nil || st.Mode != ramdisk.Mirror {
		return false
	}
	cur, err := k.store(st).Current()
	return err == nil && cur != "" && k.behind(st, cur)
}

// behind reports whether a Mirror disk's folder lacks the current snapshot
// (a write-back failed or never ran) or a write-back was cut short.
func (k *Keeper) behind(st State, cur string) bool {
	h, ok := syncrec.ReadHead(st.Backing)
	return !ok || !h.Complete || h.Snapshot != cur || h.DiskID != st.ID || h.Folder != st.MirrorPath || foldersync.HasJournal(st.Backing)
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
