package main

import (
	"errors"
	"path/filepath"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
)

// contentsFlags are create's contents flags as given: a setting not given
// (its Set false) keeps what is stored for the name.
type contentsFlags struct {
	Keep                   bool
	Mirror                 string
	Snapshots              int
	SnapshotsSet           bool
	SaveEvery              string
	SaveEverySet, SetAside bool
}

// contentsOptions checks create's --keep/--mirror/--snapshots/--save-every
// before anything is made. --save-every 0 turns autosave off, auto saves
// continuously; a flag not given keeps the name's stored setting.
func contentsOptions(f contentsFlags) (keeper.Options, error) {
	o := keeper.Options{Snapshots: f.Snapshots, SetAsideKept: f.SetAside}
	if f.SaveEverySet {
		secs, auto, err := parseSaveEvery(f.SaveEvery)
		switch {
		case err != nil:
			return o, err
		case auto:
			o.SaveEvery = keeper.AutosaveAuto
		case secs == 0:
			o.SaveEvery = keeper.AutosaveOff
		default:
			o.SaveEvery = time.Duration(secs) * time.Second
		}
	}
	// Flags that cannot work together were refused (ramdisk.CheckChoices).
	switch {
	case f.Keep:
		o.Mode = ramdisk.Keep
	case f.Mirror != "":
		abs, err := filepath.Abs(f.Mirror)
		if err != nil {
			return o, usagef("--mirror %s: %v", f.Mirror, err)
		}
		o.Mode, o.MirrorPath = ramdisk.Mirror, abs
	}
	if f.Snapshots < 0 {
		return o, usagef("--snapshots must not be negative")
	}
	if f.SnapshotsSet && f.Snapshots == 0 {
		return o, usagef("--snapshots must be at least 1")
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
	SaveEvery    float64             `json:"save_every_seconds"` // 0: no autosave by interval
	// SaveContinuously: saved seconds after each change while the
	// menu-bar app runs (--save-every auto).
	SaveContinuously bool `json:"save_continuously,omitempty"`
	// AutosaveActive: an interval is set, the menu-bar app, which does
	// the autosaving, runs now, and the disk is one it saves (not one whose
	// restore did not finish).
	AutosaveActive bool `json:"autosave_active"`
	// Unsaved is whether the disk has changes not yet saved; null when
	// it could not be told.
	Unsaved *bool `json:"unsaved_changes"`
	// UnsavedPaths is how many paths changed since the last save, as the
	// menu-bar app's change feed counts them (no scan); absent when no
	// feed counts them (unsaved_changes then comes from a scan).
	UnsavedPaths *int `json:"unsaved_paths,omitempty"`
	// Feed is the change feed that follows the disk in the running
	// menu-bar app (fanotify, inotify, FSEvents) and its watches; absent
	// when the app does not follow it.
	Feed *feedJSON `json:"feed,omitempty"`
	// KeptInFolder counts, for a Mirror disk, the changes its folder keeps
	// that the disk lacks (`rambar refresh` takes them); absent for other
	// disks and when the folder could not be read.
	KeptInFolder *int `json:"kept_in_folder,omitempty"`
	// RestoreIncomplete is set when the disk's restore did not finish: it
	// holds only part of its saved state, and is not saved over it.
	RestoreIncomplete bool   `json:"restore_incomplete,omitempty"`
	Error             string `json:"error,omitempty"`
}

// heldSnapshot is the snapshot the disk's files were last saved as or
// restored from, and when that save was made; ok is false when it cannot
// be told.
func heldSnapshot(k *keeper.Keeper, name string) (string, time.Time, bool) {
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
		if errors.Is(err, keeper.ErrNotKept) {
			return nil
		}
		return &contentsJSON{Error: err.Error()}
	}
	if !k.Holds(v, st) && !a.files().Incomplete(v) {
		return nil // made without keeping (a kept name without --keep): not kept
	}
	c := &contentsJSON{Mode: st.Mode, Backing: st.Backing, MirrorPath: st.MirrorPath, LastSnapshot: optString(st.LastSnapshot),
		Snapshots: st.Snapshots, SaveEvery: float64(st.SaveEvery), SaveContinuously: st.Continuous, RestoreIncomplete: a.files().Incomplete(v)}
	c.AutosaveActive = (st.SaveEvery > 0 || st.Continuous) && !c.RestoreIncomplete && a.menuBarRunning()
	if !st.LastSave.IsZero() {
		t := st.LastSave.UTC()
		c.LastSave = &t
	}
	if id, t, ok := heldSnapshot(k, v.Name); ok {
		// The save the disk's files are (a restore of an older one, or a save
		// that found nothing changed, does not make it newer).
		c.LastSnapshot, c.LastSave = &id, &t
	}
	c.Feed = a.feedOf(k, v.Name)
	if withDirty {
		if n, ok := a.unsavedCount(k, v); ok {
			d := n > 0
			c.Unsaved, c.UnsavedPaths = &d, &n
		} else if d, err := k.Dirty(v); err == nil {
			c.Unsaved = &d
		} else {
			c.Error = err.Error()
		}
		if n, ok := a.files().FolderChanges(v); ok {
			c.KeptInFolder = &n
		}
	}
	return c
}

// feedCount is how many paths changed on disk name since its last save,
// as the running menu-bar app's change feed counts them (keeper.FeedStatus);
// false when no running app's feed can tell.
func (a *App) feedCount(k *keeper.Keeper, name string) (int, bool) {
	fs, ok := k.FeedStatus(name)
	if !ok || !fs.Unsaved.Known {
		return 0, false
	}
	if pid, running := a.menuBarPID(); !running || pid != fs.PID {
		return 0, false // written by an app that is gone
	}
	return fs.Unsaved.Paths, true
}
