package keeper

import (
	"rambar/foldersync"
	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// No write is left only in an old snapshot. A Mirror disk's save that
// never reached its folder (an eject that could not write it back, a
// disk lost before its write-back) is in the store only. When the disk is
// made again it loads the folder, and that load's snapshot becomes the
// current one; without a mark, saves would prune the older one and with
// it the only copy of what the folder lacks. So, the rule:
//
//   - Before a Mirror load, the store's current snapshot, if the folder's
//     sync record does not name it as completely written back, is marked
//     snapstore.SafetyUnwritten (so the load's own save cannot prune it).
//   - After the load it is compared with the load's snapshot (the folder
//     as loaded): the paths it holds that the folder lacks, or holds an
//     older version of (a file whose time in the snapshot is later), are
//     named in its label and in Result.Safety (create says so). When there
//     are none the mark is cleared.
//   - A marked snapshot is never pruned until it is restored (the disk
//     then holds it, and its next save writes it back) or the name is
//     forgotten.

// markUnwritten marks, before a Mirror disk's load, the store's current
// snapshot when the folder never got it; "" when there is none to mark.
// A failure to mark refuses the load: the snapshot could be pruned by it.
func (k *Keeper) markUnwritten(st State) (string, error) {
	if st.Mode != ramdisk.Mirror {
		return "", nil
	}
	s := k.store(st)
	cur, err := s.Current()
	if err != nil || cur == "" {
		return "", err
	}
	if h, ok := foldersync.ReadSyncHead(st.Backing); ok && h.Complete && h.Snapshot == cur {
		return "", nil // written back whole: the folder had all of it
	}
	if l, err := s.Safety(cur); err != nil || l != nil {
		return cur, nil // marked already (a damaged label keeps it too)
	}
	return cur, s.WriteSafety(cur, &snapstore.Safety{Kind: snapstore.SafetyUnwritten})
}

// settleUnwritten compares the marked snapshot old with loaded, the
// snapshot a Mirror load just made of the folder, and labels old with
// what the folder lacks, or clears its mark when it lacks nothing. A
// snapshot that cannot be read keeps its mark, and nil is returned.
func (k *Keeper) settleUnwritten(st State, old, loaded string) *SafetyNote {
	if old == "" {
		return nil
	}
	s := k.store(st)
	if old == loaded {
		_ = s.ClearSafety(old)
		return nil
	}
	om, err := s.Manifest(old)
	if err != nil {
		return nil
	}
	nm, err := s.Manifest(loaded)
	if err != nil {
		return nil
	}
	lacks := folderLacks(om.Entries, nm.Entries, snapstore.SafetyMax)
	if lacks.N == 0 {
		_ = s.ClearSafety(old)
		return nil
	}
	l := snapstore.Safety{Kind: snapstore.SafetyUnwritten, Of: loaded, Paths: lacks.Paths, Count: lacks.N}
	if s.WriteSafety(old, &l) != nil {
		return nil // the provisional mark stays: kept all the same
	}
	return &SafetyNote{Snapshot: old, Safety: l}
}

// folderLacks lists the paths of snap (entries in tree order) that folder
// (the entries of the folder as loaded) lacks, or holds an older version
// of: a file, link or FIFO whose modification time in snap is later and
// that differs there in kind, size or time. Folders are named only when
// missing.
func folderLacks(snap, folder []tree.Entry, max int) snapstore.PathList {
	l := snapstore.PathList{Max: max}
	j := 0
	for i := range snap {
		e := &snap[i]
		for j < len(folder) && tree.CmpPath(folder[j].Path, e.Path) < 0 {
			j++
		}
		if j == len(folder) || folder[j].Path != e.Path {
			l.Add(e.Path)
			continue
		}
		f := &folder[j]
		if e.Kind == tree.KindDir && f.Kind == tree.KindDir {
			continue
		}
		if later(e.MTime, f.MTime) && (e.Kind != f.Kind || e.Size != f.Size || e.MTime != f.MTime) {
			l.Add(e.Path)
		}
	}
	return l
}

// later reports whether a is after b.
func later(a, b unix.Timespec) bool {
	return a.Sec > b.Sec || a.Sec == b.Sec && a.Nsec > b.Nsec
}
