package disks

import (
	"context"
	"errors"
	"time"

	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

// Refresh brings the changes made in a Mirror disk's folder onto the disk
// (`rambar refresh`, the menu's Take Folder's Changes): under the disk's
// lock, with its mount point held, the keeper saves the disk (its own
// changes into the folder first), takes each path the folder changed
// where the disk still holds the last sync's version, and saves again
// (keeper.Keeper.Refresh). A disk that is not a Mirror disk is refused
// (keeper.ErrNotMirror), as are another data folder's disk and one whose
// load did not finish.
func (s *Service) Refresh(ctx context.Context, v ramdisk.Volume, progress ramdisk.ProgressFunc) (keeper.Refreshed, error) {
	k, release, err := s.keeperLocked(ctx, v.Name, "refreshing")
	if err != nil {
		return keeper.Refreshed{}, err
	}
	defer release()
	if err := s.stillMounted(ctx, v); err != nil {
		return keeper.Refreshed{}, err
	}
	if err := s.refuseForeign(v); err != nil {
		return keeper.Refreshed{}, err
	}
	if s.Incomplete(v) {
		return keeper.Refreshed{}, s.incompleteErr("refresh", v)
	}
	st, err := k.State(v.Name)
	switch {
	case errors.Is(err, keeper.ErrNotKept):
		return keeper.Refreshed{}, i18n.Errorf("refresh %s: %w: its contents are not kept ('rambar keep %s --mirror FOLDER' mirrors it to a folder)",
			v.Name, keeper.ErrNotMirror, quoteArg(v.Name))
	case err != nil:
		return keeper.Refreshed{}, err
	case st.Mode != ramdisk.Mirror:
		return keeper.Refreshed{}, i18n.Errorf("refresh %s: %w: its contents are kept in RAMBar's store, not in a folder", v.Name, keeper.ErrNotMirror)
	case !k.Holds(v, st):
		return keeper.Refreshed{}, i18n.Errorf("refresh %s: %w: it was made without --mirror, so %s is not its folder", v.Name, keeper.ErrNotMirror, st.MirrorPath)
	}
	p, err := pin(v)
	if err != nil {
		return keeper.Refreshed{}, err
	}
	defer p.release()
	r, err := k.Refresh(ctx, v, mirrorProgress(v.Name, progress))
	if err == nil {
		err = p.check(v, st.ID)
	}
	return r, err
}

// FolderChanges is how many changes a mounted Mirror disk's folder keeps
// that the disk lacks (keeper.Keeper.FolderChanges); ok is false for a
// disk that is not one of this data folder's Mirror disks, or when the
// folder could not be read.
func (s *Service) FolderChanges(v ramdisk.Volume) (n int, ok bool) {
	k, st, err := s.keptState(v.Name)
	if err != nil || st.Mode != ramdisk.Mirror || !k.Holds(v, st) || s.Incomplete(v) {
		return 0, false
	}
	n, err = k.FolderChanges(v)
	return n, err == nil
}

// keptEvery is the least time the menu reuses a count of the changes kept
// in a Mirror disk's folder; a folder whose walk takes longer is walked at
// most every keptCost times its walk (a 100,000-path folder that takes
// a second, every 20 s).
const (
	keptEvery = 15 * time.Second
	keptCost  = 20
)

type keptMark struct {
	at   time.Time
	ttl  time.Duration
	n    int
	busy bool // a walk is running
}

// KeptInFolder is the menu's count of the changes a Mirror disk's folder
// keeps that the disk lacks (0 for other disks), reused for a while
// (keptEvery, or keptCost times the walk it took) unless the disk was
// saved or refreshed, so a large folder is never walked on every refresh.
func (m *Menu) KeptInFolder(v ramdisk.Volume) int {
	m.mu.Lock()
	k, ok := m.kept[v.Name]
	if ok && (k.busy || time.Since(k.at) < k.ttl) {
		m.mu.Unlock()
		return k.n
	}
	k.busy = true
	m.kept[v.Name] = k
	m.mu.Unlock()
	start := time.Now()
	n, _ := m.S.FolderChanges(v)
	took := time.Since(start)
	m.mu.Lock()
	m.kept[v.Name] = keptMark{at: time.Now(), ttl: max(keptEvery, keptCost*took), n: n}
	m.mu.Unlock()
	return n
}

// Refresh is Take Folder's Changes: the changes kept in a Mirror disk's
// folder brought onto the disk, its progress in the menu; the saves'
// conflicts are kept and heard as Save Now's are. It returns how many
// paths it took and removed.
func (m *Menu) Refresh(ctx context.Context, v ramdisk.Volume, progress ramdisk.ProgressFunc) (int, error) {
	r, err := m.S.Refresh(ctx, v, progress)
	m.Forget(v.Name)
	folder := &keeper.WriteBack{Folder: r.Folder, Conflicts: r.Conflicts()}
	if r.After.Folder != nil || r.Before.Folder != nil {
		m.Saved(v.Name, keeper.Result{Folder: folder})
	}
	return r.Taken + r.Removed, err
}
