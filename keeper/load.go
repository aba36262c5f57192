package keeper

import (
	"context"
	"fmt"
	"os"

	"rambar/i18n"
	"rambar/snapshot"
	"rambar/tree"

	"rambar/ramdisk"
)

// Load fills a freshly made disk: the current snapshot of a kept disk, or
// the mirror folder of a mirrored one (then saved as the first snapshot so
// the store and the folder agree). It records and marks the disk as the
// store's first (internal/diskid). A disk too
// small is refused before anything is written.
func (k *Keeper) Load(ctx context.Context, v ramdisk.Volume, progress tree.ProgressFunc) (Result, error) {
	return k.LoadFollowed(ctx, v, progress, nil)
}

// LoadFollowed is Load where a change feed can follow the disk (the agent,
// the menu-bar app): follow, when set, is called once a Mirror disk holds
// the folder's files and before its first snapshot's walk, and gives the
// disk's Following (nil: none). That walk is then the feed's first, so the
// next save reads only what changed since the load: its index is the
// load's by-product.
func (k *Keeper) LoadFollowed(ctx context.Context, v ramdisk.Volume, progress tree.ProgressFunc, follow func() *Following) (Result, error) {
	st, err := k.State(v.Name)
	if err != nil {
		return Result{}, err
	}
	if err := k.checkEmpty(v); err != nil {
		return Result{}, err
	}
	if err := k.markUnwritten(st); err != nil { // a last save the folder never got (unwritten.go)
		return Result{}, err
	}
	if st.Mode == ramdisk.Mirror {
		if err := k.startLoad(st); err != nil {
			return Result{}, err
		}
	}
	if _, err := k.adopt(v, st); err != nil {
		return Result{}, err
	}
	var res Result
	switch st.Mode {
	case ramdisk.Keep:
		cur, err := k.store(st).Current()
		if err != nil {
			return Result{}, err
		}
		if cur == "" {
			return Result{Result: snapshot.Result{Unchanged: true}}, nil
		}
		sr, err := k.store(st).Restore(ctx, "", v.MountPoint, st.ID, progress)
		res.Result = sr
		if err != nil {
			return res, fmt.Errorf("restore %s from %s: %w", v.Name, st.Backing, err)
		}
	case ramdisk.Mirror:
		if res, err = k.loadMirror(ctx, st, v, progress, follow); err != nil {
			return res, err
		}
		res.Safety = k.settleUnwritten(st, res.Snapshot)
	}
	if _, err := k.adopt(v, st); err != nil { // the root's attributes were set: the mark again
		return res, err
	}
	return res, k.noteSave(st, res.Snapshot)
}

// checkEmpty refuses to load into a disk that already holds files.
func (k *Keeper) checkEmpty(v ramdisk.Volume) error {
	ents, err := os.ReadDir(v.MountPoint)
	if err != nil {
		return fmt.Errorf("read %s: %w", v.MountPoint, err)
	}
	reserved := tree.ReservedIn(v.MountPoint)
	for _, e := range ents {
		if !reserved(e.Name()) {
			return i18n.Errorf("%w: %s already holds files (%s); restoring would overwrite them", ErrRefused, v.Name, e.Name())
		}
	}
	return nil
}

// Restore puts a snapshot back on a mounted disk. A disk holding files is
// refused unless o.Force, naming its unsaved paths; forced, what it holds
// unsaved is first saved as a safety snapshot (Result.Safety), then its
// files are removed (restoresafe.go); the room needed is checked before
// anything is written.
func (k *Keeper) Restore(ctx context.Context, v ramdisk.Volume, o RestoreOptions) (Result, error) {
	st, err := k.State(v.Name)
	if err != nil {
		return Result{}, err
	}
	s := k.store(st)
	m, err := s.Resolve(o.Snapshot)
	if err != nil {
		return Result{}, snapshot.WroteNothing(err)
	}
	cleared := false
	var safety *SafetyNote
	if err := k.checkEmpty(v); err != nil {
		// Something mounted inside would stay through the clearing: refused
		// first, with or without force.
		if merr := RefuseMounts("restore", v.Name, v.MountPoint); merr != nil {
			return Result{}, snapshot.WroteNothing(merr)
		}
		u, err := k.unsavedOn(v, st, s, o) // named by the refusal, kept by the forced restore (restoresafe.go)
		if err != nil {
			return Result{}, snapshot.WroteNothing(err)
		}
		if !o.Force {
			return Result{}, snapshot.WroteNothing(unsavedRefusal(v, st, u, o))
		}
		// Check the room before removing anything: what the disk holds now
		// is freed by the clearing.
		free, err := tree.FreeSpace(v.MountPoint)
		if err != nil {
			return Result{}, snapshot.WroteNothing(err)
		}
		held := int64(0)
		if items, _, _, err := snapshot.ScanMatching(v.MountPoint, 0, nil, st.Mode == ramdisk.Mirror); err == nil { // what the clearing frees: not Caches
			for _, it := range items {
				if it.HardLink == 0 {
					held += it.Blocks * 512
				}
			}
		}
		if n := snapshot.Need(m.Entries, v.MountPoint); n > free+held {
			return Result{}, snapshot.WroteNothing(i18n.Errorf("restore %s: %w: needs %s, the disk has %s; nothing was changed",
				v.Name, ramdisk.ErrNoSpace, ramdisk.Size(n).Short(), ramdisk.Size(free+held).Short()))
		}
		if safety, err = k.saveBeforeRestore(ctx, v, st, m.ID, u); err != nil {
			return Result{}, snapshot.WroteNothing(err)
		}
		cleared = true
		// All but the reserved names, never entering, emptying or removing a
		// mount point (tree.Empty).
		if err := tree.Empty(v.MountPoint, tree.ReservedIn(v.MountPoint)); err != nil {
			return Result{Safety: safety}, fmt.Errorf("clear %s: %w", v.MountPoint, err)
		}
	}
	if _, err := k.adopt(v, st); err != nil {
		return Result{}, err
	}
	sr, err := s.Restore(ctx, m.ID, v.MountPoint, st.ID, o.Progress)
	res := Result{Result: sr, Safety: safety}
	if nw, ok := err.(snapshot.NothingWritten); ok && cleared {
		err = nw.Unwrap() // the disk was cleared for it
	}
	if err != nil {
		return res, snapshot.WrapRestore(err, fmt.Sprintf("restore %s from %s", v.Name, st.Backing))
	}
	restoredSafety(s, m.ID)
	_, err = k.adopt(v, st) // a restored tree sets the root's attributes: the mark again
	return res, err
}
