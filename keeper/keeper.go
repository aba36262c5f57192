package keeper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"rambar/changefeed"
	"rambar/foldersync"
	"rambar/i18n"
	"rambar/snapshot"
	"rambar/snapstore"
	"rambar/syncrec"
	"rambar/tree"

	"rambar/ramdisk"
)

// Errors of the Keeper.
var (
	// ErrRefused: a save or restore could destroy data (an empty, unmounted
	// or different disk over a non-empty copy; unsaved changes on the disk);
	// Force overrides.
	ErrRefused = i18n.New("refused to protect saved contents")
	// ErrNotKept: the disk is neither kept nor mirrored.
	ErrNotKept = i18n.New("contents of this disk are not kept")
)

// DefaultSnapshots is how many saves are kept when a preset says 0.
const DefaultSnapshots = 5

// SaveOptions tune one save.
type SaveOptions struct {
	// Force saves even an empty, unmounted or different disk over a
	// non-empty copy.
	Force    bool
	Progress tree.ProgressFunc
	// Follow, when set, is the disk followed by its change feed: the save
	// reads only what changed, when the feed can vouch for the rest.
	Follow *Following
	// bases: the save follows a refresh (foldersync.Refresh.Bases).
	bases map[string]syncrec.Path
}

// RestoreOptions tune one restore.
type RestoreOptions struct {
	// Snapshot to restore; "" is the current one.
	Snapshot string
	// Force restores over a disk that holds files (they are removed first),
	// even unsaved ones, which are saved first as a safety snapshot.
	Force    bool
	Progress tree.ProgressFunc
	// Incomplete: the disk holds a restore that was cut short, part of a
	// saved state, which is never saved (not even as a safety snapshot).
	Incomplete bool
}

// Keeper saves and restores the contents of RAM disks. It is safe to use
// from several goroutines and processes: each disk's store is locked during
// a save or restore.
type Keeper struct {
	// Data is the app's data folder (ramdisk.Paths.Data).
	Data string
	// IsMounted reports whether a folder is a mounted file system. Saving a
	// folder that is not (the disk vanished, leaving its mount point) is
	// refused. Defaults to comparing the folder's device with its parent's.
	IsMounted func(dir string) bool
	// CopyFile, when set, writes each file a restore, load or reclaim puts
	// on a RAM disk, instead of the built-in copy; metadata is applied after.
	// On macOS the app sets it to `ditto --hfsCompression` so the files sit
	// compressed on the disk and take less of its memory.
	CopyFile CopyFunc
	// Home is the user's home folder: a mirror folder holding it whole is
	// refused. NewKeeper sets it.
	Home string
	// RAMDisks, when set, lists the mount points of the RAM disks: a
	// mirror folder inside one is refused.
	RAMDisks func() []string
	// Through, when set, says which folder a Mirror disk's load and
	// write-back open instead of its path (folderDir): for a disk mounted
	// over its folder (in place), the folder's hidden copy. "" opens the
	// path; an error refuses the load or write-back.
	Through func(st State) (string, error)
	// FeedMode, when not changefeed.ModeNative, is the kind of change feed
	// Follow opens (tests: changefeed.ModeFSEvents, the Mac's semantics on
	// Linux); else the environment names it (changefeed.EnvMode).
	FeedMode changefeed.Mode

	// placing, when set, runs in each write-back once the new files are
	// written and flushed, before the first rename (tests race it).
	placing func(w *foldersync.PathWrite)

	// refreshing, when set, runs in each refresh once it has decided what
	// to take and before it makes anything (tests race it).
	refreshing func()

	// deltaLimit, when set, replaces how many changes a delta may hold
	// (tests force compactions with it).
	deltaLimit func(baseFiles int) int
}

// CopyFunc copies one regular file's data from src to a new file dst
// (tree.CopyFunc).
type CopyFunc = tree.CopyFunc

// NewKeeper returns a Keeper storing under data.
func NewKeeper(data string) *Keeper {
	home, _ := os.UserHomeDir()
	return &Keeper{Data: data, IsMounted: ramdisk.IsMountPoint, Home: home}
}

func (k *Keeper) diskDir(name string) (string, error) {
	if err := ramdisk.ValidateName(name); err != nil {
		return "", err
	}
	if k.Data == "" {
		return "", errors.New("no data folder: HOME is not set")
	}
	return filepath.Join(k.Data, "disks", name), nil
}

func (k *Keeper) store(st State) *snapshot.Store {
	s := &snapshot.Store{Store: &snapstore.Store{Dir: st.Backing, DeltaLimit: k.deltaLimit}, CopyFile: k.CopyFile, Caches: st.Mode == ramdisk.Mirror,
		Spaced: st.Continuous, NoSameBytes: st.Mode == ramdisk.Mirror}
	s.Pinned = map[string]bool{}
	for _, id := range st.SetAside {
		if snapstore.ValidID(id) {
			s.Pinned[id] = true
		}
	}
	return s
}

// Save saves a mounted disk's contents into its store (and writes a Mirror
// folder back). It refuses, unless o.Force, to save an unmounted disk, a
// disk that is not the one the store keeps (Holds: another disk of the same
// name, another data folder's), or an empty disk over a non-empty copy. The
// disk is recorded and marked as the store's (its mark put back if it was
// removed: Result.Remarked).
func (k *Keeper) Save(ctx context.Context, v ramdisk.Volume, o SaveOptions) (Result, error) {
	st, err := k.State(v.Name)
	if err != nil {
		return Result{}, err
	}
	s := k.store(st)
	// One lock over the checks, the save and the write-back: two saves of
	// one disk (autosave and the CLI, save and eject) never interleave,
	// and the mirror record read here is the one the write-back uses.
	unlock, err := s.Lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	return k.saveHeld(ctx, v, st, s, o)
}

// saveHeld is Save with the store's lock held (a refresh saves before and
// after it takes the folder's changes, under one lock).
func (k *Keeper) saveHeld(ctx context.Context, v ramdisk.Volume, st State, s *snapshot.Store, o SaveOptions) (Result, error) {
	// What a refresh killed halfway left on the disk under its temporary
	// names is never saved (foldersync/temps.go).
	if st.Mode == ramdisk.Mirror && k.Holds(v, st) {
		foldersync.CleanDiskTemps(st.Backing, v.MountPoint)
	}
	// A Mirror disk whose load did not finish is never written back.
	var rec *syncrec.Record
	var err error
	if st.Mode == ramdisk.Mirror {
		if rec, err = k.loadedRecord(st); err != nil && !(o.Force && (errors.Is(err, ErrIncomplete) || errors.Is(err, syncrec.ErrDamaged))) {
			return Result{}, err
		}
		defer func() { rec.Close() }()
	}
	backed, err := s.NonEmpty()
	if err != nil {
		return Result{}, err
	}
	foreign := k.foreign(v)
	if !o.Force && (backed || foreign) {
		if err := k.guard(v, st); err != nil {
			return Result{}, err
		}
	}
	if _, err := os.Stat(v.MountPoint); err != nil {
		return Result{}, fmt.Errorf("save %s: %w", v.Name, err)
	}
	remarked := false
	if !foreign || k.Holds(v, st) { // another data folder's disk is saved (forced), never taken
		if remarked, err = k.adopt(v, st); err != nil { // the record and the mark: this store's disk
			return Result{}, fmt.Errorf("save %s: %w", v.Name, err)
		}
	}
	sr, err := s.SaveLocked(ctx, v.MountPoint, st.ID, st.Snapshots, o.Progress, o.Follow.follow())
	res := Result{Result: sr, Remarked: remarked}
	if err != nil {
		return res, fmt.Errorf("save %s to %s: %w", v.Name, st.Backing, err)
	}
	if st.Mode == ramdisk.Mirror && (!res.Unchanged || k.behind(st, res.Snapshot)) {
		wb, err := k.writeBack(ctx, st, s, res.Snapshot, v.MountPoint, rec, o.bases)
		if errors.Is(err, syncrec.ErrDamaged) && rec != nil {
			if !o.Force {
				err = damaged(st, err)
			} else {
				rec.Close()
				rec = nil // as if never loaded: every difference kept both ways
				wb, err = k.writeBack(ctx, st, s, res.Snapshot, v.MountPoint, nil, nil)
			}
		}
		res.Folder = wb
		if err != nil {
			return res, fmt.Errorf("saved %s as snapshot %s in %s, but writing it back to %s failed: %w",
				v.Name, res.Snapshot, st.Backing, st.MirrorPath, err)
		}
		res.Unchanged = false
	}
	err = k.noteSave(st, res.Snapshot)
	o.Follow.publish(true)
	return res, err
}

// guard refuses a save that could replace good contents with nothing.
// The words say what, not how to override it: `save --force` can, an
// eject cannot (the disk is gone after it), so the callers say that.
func (k *Keeper) guard(v ramdisk.Volume, st State) error {
	if k.IsMounted != nil && !k.IsMounted(v.MountPoint) {
		return i18n.Errorf("%w: %s is not mounted at %s; saving it would replace the saved copy in %s",
			ErrRefused, v.Name, v.MountPoint, st.Backing)
	}
	if !k.Holds(v, st) {
		return k.notHeldErr(v, st)
	}
	if has, err := tree.HasContents(v.MountPoint); err != nil || has {
		return err
	}
	return i18n.Errorf("%w: %s is empty; saving it would empty the saved copy in %s",
		ErrRefused, v.Name, st.Backing)
}

// Snapshots lists a disk's saved states, oldest first.
func (k *Keeper) Snapshots(name string) ([]snapstore.Snapshot, error) {
	st, err := k.State(name)
	if err != nil {
		return nil, err
	}
	return k.store(st).Snapshots()
}

// Dirty reports whether a mounted disk has changes not yet saved: any path
// added, removed or changed (by identity: inode, ctime, mtime, size, mode)
// since the last save or restore. Files are not read, but those written
// through shared mappings (changedSince).
func (k *Keeper) Dirty(v ramdisk.Volume) (bool, error) {
	st, err := k.State(v.Name)
	if err != nil {
		return false, err
	}
	s := k.store(st)
	idx := s.LoadIndex()
	cur, err := s.Current()
	if err != nil {
		return false, err
	}
	if has, err := tree.HasContents(v.MountPoint); cur == "" && k.Holds(v, st) && err == nil && !has {
		return false, nil // a new disk never saved and still empty: nothing to lose
	}
	if idx == nil || idx.DiskID != st.ID || idx.Snapshot != cur || !k.Holds(v, st) {
		return true, nil
	}
	if st.Mode == ramdisk.Mirror && k.behind(st, cur) {
		return true, nil // the folder lacks the last save (a write-back failed)
	}
	return snapshot.ChangedSince(v.MountPoint, idx, s.Caches)
}
