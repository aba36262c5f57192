package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"rambar/mirror"
	"rambar/ramdisk"
)

// contentsOptions checks create's --keep/--mirror/--snapshots/--save-every
// before anything is made.
func contentsOptions(keep bool, mirrorDir string, snapshots int, every time.Duration) (mirror.Options, error) {
	o := mirror.Options{Snapshots: snapshots, SaveEvery: every}
	switch {
	case keep && mirrorDir != "":
		return o, usagef("--keep and --mirror exclude each other")
	case keep:
		o.Mode = ramdisk.Keep
	case mirrorDir != "":
		abs, err := filepath.Abs(mirrorDir)
		if err != nil {
			return o, usagef("--mirror %s: %v", mirrorDir, err)
		}
		o.Mode, o.MirrorPath = ramdisk.Mirror, abs
	case snapshots != 0 || every != 0:
		return o, usagef("--snapshots and --save-every need --keep or --mirror")
	}
	if snapshots < 0 || every < 0 {
		return o, usagef("--snapshots and --save-every must not be negative")
	}
	return o, nil
}

// setupContents records how the disk's contents are kept; undo forgets it
// again if the disk could not be made and nothing was kept before.
func (a *App) setupContents(name string, o mirror.Options) (undo func(), err error) {
	if o.Mode == ramdisk.Discard {
		return func() {}, nil
	}
	k, err := a.keeper()
	if err != nil {
		return nil, err
	}
	_, before := k.State(name)
	if _, err := k.Setup(name, o); err != nil {
		return nil, usagef("%v", err)
	}
	return func() {
		if errors.Is(before, mirror.ErrNotKept) {
			k.Forget(name)
		}
	}, nil
}

// loadContents fills a new kept or mirrored disk. If that fails the disk is
// ejected again (it is empty; the saved copy is untouched) and the error
// says so.
func (a *App) loadContents(ctx context.Context, v ramdisk.Volume, quiet bool) (*contentsJSON, error) {
	k, err := a.keeper()
	if err != nil {
		return nil, err
	}
	fn, done := a.contentsProgress(v.Name)
	if quiet {
		fn = nil
	}
	r, err := k.Load(ctx, v, fn)
	done()
	if err != nil {
		e, _ := a.Engine()
		if ejErr := e.Eject(ctx, v, false); ejErr != nil {
			return nil, contentsErr(fmt.Errorf("create %s: loading contents failed: %w (and ejecting it again failed: %v)", v.Name, err, ejErr))
		}
		return nil, contentsErr(fmt.Errorf("create %s: loading contents failed, the disk was ejected and the saved copy is untouched: %w", v.Name, err))
	}
	c := a.contentsOf(v, false)
	if !quiet {
		switch {
		case c.Mode == ramdisk.Mirror:
			fmt.Fprintf(a.Stdout, "Loaded %s: %s (%s); changes are written back on save and eject\n", c.MirrorPath, ramdisk.Plural(r.Files, "file"), ramdisk.Size(r.Bytes).Short())
		case r.Snapshot != "":
			fmt.Fprintf(a.Stdout, "Restored %s (%s) saved %s\n", ramdisk.Plural(r.Files, "file"), ramdisk.Size(r.Bytes).Short(), r.Snapshot)
		default:
			fmt.Fprintf(a.Stdout, "Contents are kept in %s (nothing saved yet)\n", c.Backing)
		}
	}
	return c, nil
}

// contentsJSON is a disk's contents mode in `info --json` and `create --json`.
type contentsJSON struct {
	Mode         ramdisk.ContentMode `json:"mode"`
	Backing      string              `json:"backing"`
	MirrorPath   string              `json:"mirror_path,omitempty"`
	LastSave     *time.Time          `json:"last_save"` // null: never saved
	LastSnapshot string              `json:"last_snapshot,omitempty"`
	Snapshots    int                 `json:"snapshots_kept"`
	SaveEvery    int                 `json:"save_every_seconds,omitempty"`
	// Unsaved is whether the disk has changes not yet saved; null when
	// it could not be told.
	Unsaved *bool  `json:"unsaved_changes"`
	Error   string `json:"error,omitempty"`
}

// contentsOf describes a disk's contents mode; nil for disks not kept.
// withDirty looks for unsaved changes (a walk of the disk, no file read).
func (a *App) contentsOf(v ramdisk.Volume, withDirty bool) *contentsJSON {
	k, err := a.keeper()
	if err != nil {
		return nil
	}
	st, err := k.State(v.Name)
	if err != nil {
		if errors.Is(err, mirror.ErrNotKept) {
			return nil
		}
		return &contentsJSON{Error: err.Error()}
	}
	c := &contentsJSON{Mode: st.Mode, Backing: st.Backing, MirrorPath: st.MirrorPath, LastSnapshot: st.LastSnapshot,
		Snapshots: st.Snapshots, SaveEvery: st.SaveEvery}
	if !st.LastSave.IsZero() {
		t := st.LastSave.UTC()
		c.LastSave = &t
	}
	if withDirty {
		if d, err := k.Dirty(v); err == nil {
			c.Unsaved = &d
		} else {
			c.Error = err.Error()
		}
	}
	return c
}
