package disks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

// Saved is what is kept for a disk's name in the data folder: the saved
// contents a later `create --keep` (or `restore`) puts back.
type Saved struct {
	Name string
	Mode ramdisk.ContentMode
	// Dir is the store folder; Bytes what its files take there.
	Dir   string
	Bytes int64
	// Snapshots is how many saves are there; LastSave the time of the last.
	Snapshots int
	LastSave  time.Time
}

// SavedContents says what is kept for name; ok is false when nothing is.
func (s *Service) SavedContents(name string) (sv Saved, ok bool, err error) {
	k, st, err := s.keptState(name)
	switch {
	case errors.Is(err, ErrNoData) || errors.Is(err, keeper.ErrNotKept):
		return Saved{}, false, nil // no data folder, or nothing kept
	case err != nil:
		return Saved{}, false, err
	}
	sv = Saved{Name: cmp.Or(st.Name, name), Mode: st.Mode, Dir: st.Backing, LastSave: st.LastSave}
	if snaps, err := k.Snapshots(name); err == nil {
		sv.Snapshots = len(snaps)
	}
	// Walked, never followed: a link in the store is counted as a link.
	filepath.WalkDir(st.Backing, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				sv.Bytes += fi.Size()
			}
		}
		return nil
	})
	return sv, true, nil
}

// NotKept reports whether the mounted disk v was made without keeping its
// contents although saved contents exist under its name (a kept name
// without --keep): it is not saved, and they wait to be restored.
func (s *Service) NotKept(v ramdisk.Volume) (Saved, bool) {
	k, st, err := s.keptState(v.Name)
	if err != nil || k.Holds(v, st) || s.Incomplete(v) {
		return Saved{}, false
	}
	sv, ok, err := s.SavedContents(v.Name)
	return sv, ok && err == nil && sv.Snapshots > 0
}

// CanForget says what Forget would delete, or why it would refuse
// (asked before the question "Forget …?", and again by Forget under the
// lock): nothing saved is ErrNothingSaved; a disk of that name mounted
// and kept is ErrStillKept (and keeper.ErrRefused).
func (s *Service) CanForget(ctx context.Context, name string) (Saved, error) {
	if err := ramdisk.ValidateName(name); err != nil {
		return Saved{}, err
	}
	sv, ok, err := s.SavedContents(name)
	if err != nil {
		return Saved{}, err
	}
	if !ok {
		return Saved{}, fmt.Errorf("forget %s: %w", name, ErrNothingSaved)
	}
	v, err := s.Find(ctx, name)
	switch {
	case errors.Is(err, ramdisk.ErrNotFound):
		return sv, nil
	case err != nil:
		return sv, err
	}
	if k, st, err := s.keptState(name); err == nil && (k.Holds(v, st) || s.Incomplete(v)) {
		return sv, fmt.Errorf("forget %s: %w: the disk of that name %w; eject it first", name, keeper.ErrRefused, ErrStillKept)
	}
	return sv, nil
}

// ErrNothingSaved: no contents are kept under that name.
var ErrNothingSaved = i18n.New("nothing is saved under that name")

// ErrStillKept: the saved contents of a disk that is mounted and kept
// cannot be forgotten (eject it first, or it would be saved again).
var ErrStillKept = errors.New("is mounted and kept")

// Forget removes the saved contents of name (state and snapshots) and,
// when no disk of that name is mounted, the record of its extras, under
// the disk's lock. It refuses while a disk of that name is mounted and
// kept; nothing kept is ErrNothingSaved.
func (s *Service) Forget(ctx context.Context, name string) (Saved, error) {
	if err := ramdisk.ValidateName(name); err != nil {
		return Saved{}, err
	}
	release, err := s.lock(ctx, name, "forgetting")
	if err != nil {
		return Saved{}, err
	}
	defer release()
	sv, err := s.CanForget(ctx, name)
	if err != nil {
		return sv, err
	}
	k, err := s.Keeper()
	if err != nil {
		return sv, err
	}
	k.Release(name)
	if err := k.Forget(name); err != nil {
		return sv, fmt.Errorf("forget %s: %w", name, err)
	}
	if _, err := s.Find(ctx, name); errors.Is(err, ramdisk.ErrNotFound) {
		// Its extras' record goes too, unless a disk of that name (made
		// without keeping) is mounted now and still needs it.
		s.optionsKind().Remove(name)
	}
	return sv, nil
}
