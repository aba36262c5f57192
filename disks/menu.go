package disks

import (
	"context"
	"sync"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
)

// dirtyEvery is how long the menu reuses an "unsaved changes" answer:
// finding it walks the disk's metadata, too much for every 2-second refresh
// of a large disk.
const dirtyEvery = 15 * time.Second

// Menu is the use cases as the menu calls them (it satisfies tray.Disks):
// the same operations as the CLI's, with the menu's shapes of results.
type Menu struct {
	S *Service
	// Conflicts, when set, hears each Mirror write-back of Save Now or
	// Eject that kept both versions of some paths (the menu notifies).
	Conflicts func(name string, wb keeper.WriteBack)

	mu        sync.Mutex
	dirty     map[string]dirtyMark
	conflicts map[string]keeper.WriteBack // the last write-back of each disk, when it had conflicts
	// detachedList is the last DetachedDisks, read at detachedAt.
	detachedList []Detached
	detachedAt   time.Time
	// kept is the last count of each Mirror disk's changes kept in its
	// folder (KeptInFolder).
	kept map[string]keptMark
}

type dirtyMark struct {
	at    time.Time
	dirty bool
}

// NewMenu returns the menu's view of s.
func NewMenu(s *Service) *Menu {
	return &Menu{S: s, dirty: map[string]dirtyMark{}, conflicts: map[string]keeper.WriteBack{}, kept: map[string]keptMark{}}
}

// Create makes a disk (New RAM Disk, Custom…), its contents kept or
// mirroring folder as contents says (ramdisk.Discard: a plain disk).
func (m *Menu) Create(ctx context.Context, r ramdisk.Request, contents ramdisk.ContentMode, folder string, inPlace bool) (ramdisk.Volume, error) {
	c, err := m.S.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: r.Name, FS: r.FS, Hidden: r.Hidden, Force: r.Force, Options: r.Options}, Exact: r.Size,
		Contents: keeper.Options{Mode: contents, MirrorPath: folder, InPlace: inPlace && contents == ramdisk.Mirror}})
	return c.Volume, err
}

// InPlace is the folder a disk is mounted over, from its record alone (no
// mount table read: the menu asks on every refresh); "" for none.
func (m *Menu) InPlace(v ramdisk.Volume) string {
	if r, ok := m.S.readInPlace(v.Name); ok && r.Step == ipInPlace {
		return r.Folder
	}
	return ""
}

// MountPreset makes a preset's disk, restoring its contents with progress.
func (m *Menu) MountPreset(ctx context.Context, p ramdisk.Preset, progress ramdisk.ProgressFunc) (ramdisk.Volume, error) {
	c, err := m.S.MountPreset(ctx, p, progress)
	return c.Volume, err
}

// Eject saves a kept disk first, then ejects it.
func (m *Menu) Eject(ctx context.Context, v ramdisk.Volume, force bool) error {
	ej, err := m.S.Eject(ctx, v, EjectOptions{Force: force})
	m.Forget(v.Name)
	if ej.Saved != nil {
		m.Saved(v.Name, *ej.Saved)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if ej.Detached != nil {
		m.detachedAt = time.Time{} // shown at the next refresh
	}
	if err == nil { // a disk of that name made later starts with none
		delete(m.conflicts, v.Name)
	}
	return err
}

// Save is Save Now.
func (m *Menu) Save(ctx context.Context, v ramdisk.Volume, progress ramdisk.ProgressFunc) error {
	r, err := m.S.Save(ctx, v, SaveOptions{Progress: progress})
	m.Forget(v.Name)
	m.Saved(v.Name, r)
	return err
}

// Keep is Keep Contents (folder "") and Mirror to a Folder… (folder: the
// empty folder the disk is written into).
func (m *Menu) Keep(ctx context.Context, v ramdisk.Volume, folder string, progress ramdisk.ProgressFunc) error {
	o := keeper.Options{Mode: ramdisk.Keep}
	if folder != "" {
		o = keeper.Options{Mode: ramdisk.Mirror, MirrorPath: folder}
	}
	r, err := m.S.Keep(ctx, KeepRequest{Name: v.Name, Contents: o, Progress: progress})
	m.Forget(v.Name)
	m.Saved(v.Name, r)
	return err
}

// Saved records a save of the disk (Save Now, Eject, autosave, the save
// before sleep): a Mirror write-back's conflicts are kept for the menu's
// entry (MirrorConflicts) and heard by Conflicts; a write-back without
// conflicts clears them. A save that wrote nothing back changes nothing.
func (m *Menu) Saved(name string, r keeper.Result) {
	if r.Folder == nil {
		return
	}
	m.mu.Lock()
	if len(r.Folder.Conflicts) > 0 {
		m.conflicts[name] = *r.Folder
	} else {
		delete(m.conflicts, name)
	}
	m.mu.Unlock()
	if m.Conflicts != nil && len(r.Folder.Conflicts) > 0 {
		m.Conflicts(name, *r.Folder)
	}
}

// MirrorConflicts is what the last Mirror write-back of the disk left as
// conflicts: n paths with both versions kept in folder (0 for none).
func (m *Menu) MirrorConflicts(v ramdisk.Volume) (n int, folder string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	wb, ok := m.conflicts[v.Name]
	if !ok {
		return 0, ""
	}
	return len(wb.Conflicts), wb.Folder
}

// Reclaim gives back pinned memory and says how much.
func (m *Menu) Reclaim(ctx context.Context, v ramdisk.Volume, progress ramdisk.ProgressFunc) (ramdisk.Size, error) {
	res, err := m.S.Reclaim(ctx, v, ReclaimOptions{Force: true, Progress: progress})
	m.Forget(v.Name)
	if err != nil {
		return 0, err
	}
	return res.Before.Held - res.After.Held, nil
}

// Kept tells kept and mirrored disks (Save Now applies) from plain ones.
func (m *Menu) Kept(v ramdisk.Volume) bool {
	k, st, err := m.S.keptState(v.Name)
	return err == nil && (k.Holds(v, st) || m.S.Incomplete(v) || st.InPlace && m.InPlace(v) != "")
}

// SaveStatus is when a kept disk was last saved (zero: never, or not
// kept) and how many paths changed since, as its change feed counts them
// (-1: not followed, or the feed cannot tell): no scan.
func (m *Menu) SaveStatus(v ramdisk.Volume) (time.Time, int) {
	k, st, err := m.S.keptState(v.Name)
	if err != nil || !k.Holds(v, st) {
		return time.Time{}, -1
	}
	if u := m.S.Unsaved(v); u.Known {
		return st.LastSave, u.Paths
	}
	return st.LastSave, -1
}

// Notices are the reclaims that were stopped and the disks ejected while
// busy whose memory is still held, for the menu: each a sentence whose
// words up to its first colon are its title.
func (m *Menu) Notices() []ramdisk.Said {
	var out []ramdisk.Said
	for _, l := range m.S.StoppedReclaims() {
		out = append(out, ramdisk.Sayf("A reclaim of %s was stopped: its contents are safe in %s; run: rambar reclaim \"%s\" --resume",
			l.Name, l.Path, l.Name))
	}
	for _, d := range m.detached() {
		if d.Held > 0 {
			out = append(out, ramdisk.Sayf("%s %s: it is out of the file tree, but its %s of memory are freed only when they exit or close its files",
				d.Name, d.Status(), d.Held.Short()))
			continue
		}
		out = append(out, ramdisk.Sayf("%s %s: it is out of the file tree, but its memory is freed only when they exit or close its files",
			d.Name, d.Status()))
	}
	return out
}

// detachedEvery is how long the menu reuses the list of disks ejected
// while held: finding who holds them reads every process's files.
const detachedEvery = 5 * time.Second

// detached is DetachedDisks, asked at most every detachedEvery, and at
// once after an eject.
func (m *Menu) detached() []Detached {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.detachedAt.IsZero() || time.Since(m.detachedAt) >= detachedEvery {
		m.detachedList, m.detachedAt = m.S.DetachedDisks(context.Background()), time.Now()
	}
	return m.detachedList
}

// Incomplete reports whether the disk's restore did not finish.
func (m *Menu) Incomplete(v ramdisk.Volume) bool { return m.S.Incomplete(v) }

// Whose says whose a disk this RAMBar did not make is (no Text for its own).
func (m *Menu) Whose(v ramdisk.Volume) ramdisk.Said { return m.S.Whose(v) }

// Lost is Service.Lost, for the menu's "is gone" notice.
func (m *Menu) Lost(ctx context.Context, v ramdisk.Volume) bool { return m.S.Lost(ctx, v) }

// InUse is how many paths kept changing during the save that made a kept
// disk's last snapshot, which was then taken while in use; 0 when it was
// consistent (or the disk is not kept).
func (m *Menu) InUse(v ramdisk.Volume) int {
	if !m.Kept(v) {
		return 0
	}
	k, _ := m.S.Keeper()
	if u, err := k.CurrentInUse(v.Name); err == nil && u != nil {
		return max(u.Count, 1)
	}
	return 0
}

// Unsaved is the menu's "•" mark: only kept and mirrored disks have one.
// An answer found by a walk of the disk is reused for a while (dirtyEvery)
// unless the disk was saved; the change feed's is asked every time.
func (m *Menu) Unsaved(v ramdisk.Volume) bool {
	if !m.Kept(v) || m.S.Incomplete(v) {
		return false // an incomplete disk is not saved: the menu says so instead
	}
	m.mu.Lock()
	d, ok := m.dirty[v.Name]
	m.mu.Unlock()
	if ok && time.Since(d.at) < dirtyEvery {
		return d.dirty
	}
	k, _ := m.S.Keeper()
	dirty, walked, err := m.S.dirty(k, v)
	if err != nil || !walked {
		return dirty && err == nil
	}
	m.mu.Lock()
	m.dirty[v.Name] = dirtyMark{time.Now(), dirty}
	m.mu.Unlock()
	return dirty
}

// Forget drops the remembered "unsaved" answer of a disk (it was saved),
// and its count of changes kept in its folder.
func (m *Menu) Forget(name string) {
	m.mu.Lock()
	delete(m.dirty, name)
	if k, ok := m.kept[name]; ok && !k.busy {
		delete(m.kept, name)
	}
	m.mu.Unlock()
}
