package keeper

import (
	"context"
	"errors"
	"fmt"
	"time"

	"rambar/foldersync"
	"rambar/i18n"
	"rambar/mirrorfolder"
	"rambar/tree"

	"rambar/ramdisk"
)

// ErrNotMirror: the disk has no folder to take changes from.
var ErrNotMirror = i18n.New("it is not a Mirror disk")

// Refreshed says what a refresh of a Mirror disk did.
type Refreshed struct {
	// Folder is the mirror folder the changes came from.
	Folder string `json:"folder"`
	// Taken, Removed, Left and NotKept: what the refresh did to the disk
	// (Left: the paths the save after the refresh kept both versions of,
	// After.Folder.Conflicts says where).
	foldersync.Applied
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
// two were last brought together onto the disk, under the store's lock: a
// save first (the disk's own changes into the folder, so the record's
// disk side is the snapshot just made), then foldersync's Refresh (each
// path the folder changed put on the disk where the disk still holds the
// record's version; what a killed refresh left removed first), a save of
// the refreshed disk (its write-back starts from what the refresh left,
// Refresh.Bases: both sides changed alike, nothing is written for them,
// and what the folder changed again meanwhile stays the folder's, for the
// next refresh), and the record told the folder's identities of what was
// taken.
func (k *Keeper) Refresh(ctx context.Context, v ramdisk.Volume, progress tree.ProgressFunc) (out Refreshed, err error) {
	start := time.Now()
	st, err := k.State(v.Name)
	if err != nil {
		return Refreshed{}, err
	}
	if st.Mode != ramdisk.Mirror {
		return Refreshed{}, i18n.Errorf("refresh %s: %w: its contents are kept in RAMBar's store, not in a folder", v.Name, ErrNotMirror)
	}
	if st.InPlace {
		return Refreshed{}, i18n.Errorf("refresh %s: %w: it is in place, so %s is the disk itself and holds no changes of its own", v.Name, ErrNotMirror, st.MirrorPath)
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
	if left := foldersync.CleanDiskTemps(st.Backing, v.MountPoint); len(left) > 0 {
		return out, fmt.Errorf("refresh %s: what an interrupted refresh left on the disk could not be removed: %v", v.Name, left)
	}
	if err := mirrorfolder.Check(st.MirrorPath, k.folderRules(false, "")); err != nil {
		return out, fmt.Errorf("refresh %s: %w; nothing was taken", v.Name, err)
	}
	rec, err := k.loadedRecord(st)
	if err != nil {
		return out, fmt.Errorf("refresh %s: %w", v.Name, err)
	}
	r := &foldersync.Refresh{Folder: st.MirrorPath, Disk: v.MountPoint, S: s.Store, Rec: rec, CopyFile: k.CopyFile,
		Progress: progress, Decided: k.refreshing}
	err = r.Run(ctx)
	rec.Close()
	if errors.Is(err, foldersync.ErrEmptyFolder) {
		err = fmt.Errorf("%w: %w", ErrRefused, err)
	}
	if err != nil {
		return out, fmt.Errorf("refresh %s from %s: %w", v.Name, st.MirrorPath, err)
	}
	out.Applied = r.Applied
	if out.Taken+out.Removed > 0 || len(out.Left) > 0 {
		if out.After, err = k.saveHeld(ctx, v, st, s, SaveOptions{Progress: progress, bases: r.Bases()}); err != nil {
			return out, fmt.Errorf("refresh %s: took %d changes from %s, but the save after it failed (the next save finishes it): %w",
				v.Name, out.Taken+out.Removed, st.MirrorPath, err)
		}
	}
	if rec, err = k.loadedRecord(st); err != nil {
		return out, err
	}
	defer rec.Close()
	if err := r.Settle(st.Backing, rec); err != nil {
		return out, fmt.Errorf("refreshed %s, but recording it failed (the next refresh looks again): %w", st.Name, err)
	}
	return out, nil
}

// FolderChanges counts the paths of a Mirror disk's folder changed since
// the disk and the folder were last brought together (its load, a
// write-back or a refresh) and not on the disk: the changes kept in the
// folder that `rambar refresh` takes (foldersync.FolderChanges). It takes
// no lock; a disk that is not a Mirror disk has none.
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
	return foldersync.FolderChanges(st.MirrorPath, v.MountPoint, rec)
}
