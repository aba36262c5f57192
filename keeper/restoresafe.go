package keeper

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"rambar/i18n"
	"rambar/snapshot"
	"rambar/snapstore"

	"rambar/ramdisk"
)

// A forced restore keeps what it replaces: before Restore with Force
// clears a disk that holds changes since its last save, it saves the disk
// as a snapshot of its own, labelled snapstore.SafetyRestore (listed by
// Snapshots, pruned last: snapstore.Prune), and says so in
// Result.Safety. Without Force the refusal names the unsaved paths. A
// Mirror disk's load that finds its last save never reached the folder
// marks that snapshot snapstore.SafetyUnwritten (unwritten.go).

// SafetyNote is a safety snapshot a restore or a load made or marked: the
// snapshot and its label.
type SafetyNote struct {
	Snapshot string `json:"snapshot"`
	snapstore.Safety
}

// unsavedOn is what the mounted disk v holds that no snapshot of st's
// store does: compared with the store's index when it describes this disk
// and a snapshot still listed, else everything on it. A disk holding a
// restore cut short (o.Incomplete) holds nothing to keep: part of a saved
// state is never saved.
func (k *Keeper) unsavedOn(v ramdisk.Volume, st State, s *snapshot.Store, o RestoreOptions) (snapshot.Unsaved, error) {
	if o.Incomplete {
		return snapshot.Unsaved{}, nil
	}
	idx := s.LoadIndex()
	if idx != nil && (idx.DiskID != st.ID || !k.Holds(v, st)) {
		idx = nil
	}
	if idx != nil {
		if _, err := s.ReadManifest(idx.Snapshot, false); err != nil {
			idx = nil // the state it describes was pruned or lost
		}
	}
	// As many paths as a safety label holds (a refusal names the first few).
	u, err := snapshot.UnsavedSince(v.MountPoint, idx, s.Caches, snapstore.SafetyMax)
	if err != nil {
		return u, fmt.Errorf("restore %s: %w", v.Name, err)
	}
	return u, nil
}

// unsavedRefusal is a restore's refusal without Force of a disk that
// holds files: naming the unsaved paths (the first few and a count), or
// saying that all of it is saved (or only part of a restore).
func unsavedRefusal(v ramdisk.Volume, st State, u snapshot.Unsaved, o RestoreOptions) error {
	if o.Incomplete {
		return i18n.Errorf("%w: %s holds part of a restore that did not finish: restore --force replaces it", ErrRefused, v.Name)
	}
	since := "never saved"
	if !st.LastSave.IsZero() {
		since = "not saved since " + clockOf(st.LastSave, time.Now())
	}
	switch {
	case u.Held.N > 0:
		return fmt.Errorf("%w: %s holds %s %s (%s): restore --force saves them as a snapshot first",
			ErrRefused, v.Name, ramdisk.Plural(u.Held.N, "path"), since, namePaths(u.Held, 3))
	case u.Gone.N > 0:
		return fmt.Errorf("%w: %s has %s removed, %s (%s): restore --force saves that state as a snapshot first",
			ErrRefused, v.Name, ramdisk.Plural(u.Gone.N, "path"), since, namePaths(u.Gone, 3))
	case u.Any:
		return fmt.Errorf("%w: %s holds changes to its top folder, %s: restore --force saves them as a snapshot first", ErrRefused, v.Name, since)
	}
	return i18n.Errorf("%w: %s already holds files, all of them saved: restore --force replaces them", ErrRefused, v.Name)
}

// clockOf is t as a refusal says it: the time of day when t is today, else
// the date and time.
func clockOf(t, now time.Time) string {
	t, now = t.Local(), now.Local()
	if t.Year() == now.Year() && t.YearDay() == now.YearDay() {
		return t.Format("15:04")
	}
	return t.Format("2006-01-02 15:04")
}

// namePaths is the first n paths of l, quoted where they hold separators
// or unprintable characters, and "…" when it holds more.
func namePaths(l snapstore.PathList, n int) string {
	var b strings.Builder
	for i, p := range l.Paths[:min(n, len(l.Paths))] {
		if i > 0 {
			b.WriteString(", ")
		}
		if strings.ContainsAny(p, ",()\"") || strings.IndexFunc(p, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			p = strconv.Quote(p)
		}
		b.WriteString(p)
	}
	if l.N > n {
		b.WriteString(", …")
	}
	return b.String()
}

// saveBeforeRestore saves what the mounted disk v holds, when it holds
// anything unsaved (u), as a safety snapshot before a forced restore of
// snapshot target replaces it; nil when nothing needed saving. The save
// is the store's own (a Mirror folder is not written), and it prunes
// nothing.
// An error leaves the disk as it was: the restore must not go on.
func (k *Keeper) saveBeforeRestore(ctx context.Context, v ramdisk.Volume, st State, target string, u snapshot.Unsaved) (*SafetyNote, error) {
	if !u.Any {
		return nil, nil
	}
	s := k.store(st)
	// This save prunes nothing: every snapshot there is now is pinned for
	// it (target, which the restore needs, among them; a store saved
	// continuously would otherwise keep only its spaced save points).
	snaps, err := s.Snapshots()
	if err != nil {
		return nil, fmt.Errorf("restore %s: %w; nothing was changed", v.Name, err)
	}
	s.Pinned = map[string]bool{target: true}
	for _, sn := range snaps {
		s.Pinned[sn.ID] = true
	}
	sr, err := s.Save(ctx, v.MountPoint, st.ID, max(st.Snapshots, 1), nil, nil)
	if err != nil {
		return nil, fmt.Errorf("restore %s: saving what it holds first failed, so nothing was changed: %w", v.Name, err)
	}
	if sr.Unchanged {
		return nil, nil // it holds the latest snapshot exactly: that keeps it
	}
	l := snapstore.Safety{Kind: snapstore.SafetyRestore, Of: target, Paths: u.Held.Paths[:min(len(u.Held.Paths), snapstore.SafetyMax)], Count: u.Held.N}
	if err := s.WriteSafety(sr.Snapshot, &l); err != nil {
		return nil, fmt.Errorf("restore %s: saved what it holds as snapshot %s, but: %w; nothing was changed", v.Name, sr.Snapshot, err)
	}
	if err := k.noteSave(st, sr.Snapshot); err != nil {
		return nil, fmt.Errorf("restore %s: %w; nothing was changed", v.Name, err)
	}
	return &SafetyNote{Snapshot: sr.Snapshot, Safety: l}, nil
}

// restoredSafety is a restore of snapshot id done: a safety label on it
// is cleared, since the disk now holds it and its next save keeps it (the
// rule of snapstore.keptSafety: marked until restored or forgotten). A
// label that cannot be cleared stays, and the snapshot stays kept.
func restoredSafety(s *snapshot.Store, id string) {
	if l, err := s.Safety(id); err == nil && l != nil {
		_ = s.ClearSafety(id)
	}
}

// Describe says what the safety snapshot n of disk name keeps and how to
// bring it back (folder: a Mirror disk's folder, for SafetyUnwritten), in
// English and as made, for the user's language.
func (n *SafetyNote) Describe(name, folder string) ramdisk.Said {
	q, paths := quoteName(name), namePaths(snapstore.PathList{Paths: n.Paths, N: n.Count}, 3)
	switch {
	case n.Kind == snapstore.SafetyUnwritten:
		return ramdisk.SayCount(n.Count, "%s's snapshot %s holds %d path that %s lacks (%s), written on the disk and never written back: "+
			"it is kept, never pruned, until 'rambar restore %s --snapshot %s --force' brings it back (its next save writes them into the folder) or 'rambar forget %s'",
			"%s's snapshot %s holds %d paths that %s lacks (%s), written on the disk and never written back: "+
				"it is kept, never pruned, until 'rambar restore %s --snapshot %s --force' brings it back (its next save writes them into the folder) or 'rambar forget %s'",
			name, n.Snapshot, n.Count, folder, paths, q, n.Snapshot, q)
	case n.Count > 0:
		return ramdisk.SayCount(n.Count, "Saved what %s held as snapshot %s (before restore; %d unsaved path: %s); 'rambar restore %s --snapshot %s --force' brings it back",
			"Saved what %s held as snapshot %s (before restore; %d unsaved paths: %s); 'rambar restore %s --snapshot %s --force' brings it back",
			name, n.Snapshot, n.Count, paths, q, n.Snapshot)
	}
	return ramdisk.Sayf("Saved what %s held as snapshot %s (before restore); 'rambar restore %s --snapshot %s --force' brings it back",
		name, n.Snapshot, q, n.Snapshot)
}
