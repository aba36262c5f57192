package main

import (
	"errors"
	"time"

	"rambar/mirror"
	"rambar/ramdisk"
)

// contentsOptions checks create's --keep/--mirror/--snapshots/--save-every
// before anything is made; mirrorDir is already absolute (App.pathArg).
func contentsOptions(keep bool, mirrorDir string, snapshots int, every time.Duration) (mirror.Options, error) {
	o := mirror.Options{Snapshots: snapshots, SaveEvery: every}
	switch {
	case keep && mirrorDir != "":
		return o, usagef("--keep and --mirror exclude each other")
	case keep:
		o.Mode = ramdisk.Keep
	case mirrorDir != "":
		o.Mode, o.MirrorPath = ramdisk.Mirror, mirrorDir
	case snapshots != 0 || every != 0:
		return o, usagef("--snapshots and --save-every need --keep or --mirror")
	}
	if snapshots < 0 || every < 0 {
		return o, usagef("--snapshots and --save-every must not be negative")
	}
	return o, nil
}

// contentsJSON is a disk's contents mode in `info --json` and `create --json`.
type contentsJSON struct {
	Mode         ramdisk.ContentMode `json:"mode,omitempty"`    // absent only with error
	Backing      string              `json:"backing,omitempty"` // absent only with error
	MirrorPath   string              `json:"mirror_path,omitempty"`
	LastSave     *time.Time          `json:"last_save"`     // null: never saved
	LastSnapshot *string             `json:"last_snapshot"` // null: never saved
	Snapshots    int                 `json:"snapshots_kept"`
	SaveEvery    float64             `json:"save_every_seconds"` // 0: no autosave
	// AutosaveActive: an interval is set, the menu-bar app, which does
	// the autosaving, runs now, and the disk is one it saves (not one whose
	// restore did not finish).
	AutosaveActive bool `json:"autosave_active"`
	// Unsaved is whether the disk has changes not yet saved; null when
	// it could not be told.
	Unsaved *bool `json:"unsaved_changes"`
	// RestoreIncomplete is set when the disk's restore did not finish: it
	// holds only part of its saved state, and is not saved over it.
	RestoreIncomplete bool   `json:"restore_incomplete,omitempty"`
	Error             string `json:"error,omitempty"`
}

// heldSnapshot is the snapshot the disk's files were last saved as or
// restored from, and when that save was made; ok is false when it cannot
// be told.
func heldSnapshot(k *mirror.Keeper, name string) (string, time.Time, bool) {
	id, err := k.Holding(name)
	if err != nil || id == "" {
		return "", time.Time{}, false
	}
	snaps, err := k.Snapshots(name)
	if err != nil {
		return "", time.Time{}, false
	}
	for _, s := range snaps {
		if s.ID == id {
			return id, s.Time.UTC(), true
		}
	}
	return "", time.Time{}, false
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
	if !k.Holds(v, st) && !a.files().Incomplete(v) {
		return nil // made without keeping (a kept name without --keep): not kept
	}
	c := &contentsJSON{Mode: st.Mode, Backing: st.Backing, MirrorPath: st.MirrorPath, LastSnapshot: optString(st.LastSnapshot),
		Snapshots: st.Snapshots, SaveEvery: float64(st.SaveEvery), RestoreIncomplete: a.files().Incomplete(v)}
	c.AutosaveActive = st.SaveEvery > 0 && !c.RestoreIncomplete && a.menuBarRunning()
	if !st.LastSave.IsZero() {
		t := st.LastSave.UTC()
		c.LastSave = &t
	}
	if id, t, ok := heldSnapshot(k, v.Name); ok {
		// The save the disk's files are (a restore of an older one, or a save
		// that found nothing changed, does not make it newer).
		c.LastSnapshot, c.LastSave = &id, &t
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
