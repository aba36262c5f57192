package keeper

import (
	"slices"

	"rambar/snapstore"
	"rambar/syncrec"

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
//   - After the load each marked snapshot is compared with the load's
//     snapshot (the folder as loaded): the paths it holds that the folder
//     lacks, or holds an older version of (a file whose time in the
//     snapshot is later), are named in its label, and the newest still
//     marked in Result.Safety (create says so, at every load until it is
//     settled). When the folder lacks none of them the mark is cleared.
//   - A marked snapshot is never pruned until it is restored (the disk
//     then holds it, and its next save writes it back) or the name is
//     forgotten.

// markUnwritten marks, before a Mirror disk's load, the store's current
// snapshot when the folder never got it. A failure to mark refuses the
// load: the snapshot could be pruned by it.
func (k *Keeper) markUnwritten(st State) error {
	if st.Mode != ramdisk.Mirror {
		return nil
	}
	s := k.store(st)
	cur, err := s.Current()
	if err != nil || cur == "" {
		return err
	}
	if h, ok := syncrec.ReadHead(st.Backing); ok && h.Complete && h.Snapshot == cur {
		return nil // written back whole: the folder had all of it
	}
	if slices.Contains(st.SetAside, cur) {
		return nil // kept work set aside: pinned already, and said so at its setup (keptWork)
	}
	if l, err := s.Safety(cur); err != nil || l != nil {
		return nil // marked already (a damaged label keeps it too)
	}
	return s.WriteSafety(cur, &snapstore.Safety{Kind: snapstore.SafetyUnwritten})
}

// settleUnwritten compares each marked snapshot with loaded, the snapshot
// a Mirror load just made of the folder: it labels the snapshot with
// what the folder lacks, or clears its mark when the folder lacks
// nothing of it. The note is of the newest still marked (nil: none); a
// snapshot that cannot be read keeps its mark.
func (k *Keeper) settleUnwritten(st State, loaded string) *SafetyNote {
	s := k.store(st)
	snaps, err := s.Snapshots()
	if err != nil {
		return nil
	}
	var folder *snapstore.Manifest
	var note *SafetyNote
	for _, sn := range snaps {
		if sn.Safety == nil || sn.Safety.Kind != snapstore.SafetyUnwritten || sn.ID == loaded {
			continue
		}
		if folder == nil {
			if folder, err = s.Manifest(loaded); err != nil {
				return nil
			}
		}
		old, err := s.Manifest(sn.ID)
		if err != nil {
			continue
		}
		lacks := snapstore.Lacks(old.Entries, folder.Entries, snapstore.SafetyMax)
		if lacks.N == 0 {
			_ = s.ClearSafety(sn.ID)
			continue
		}
		l := snapstore.Safety{Kind: snapstore.SafetyUnwritten, Of: loaded, Paths: lacks.Paths, Count: lacks.N}
		if s.WriteSafety(sn.ID, &l) != nil {
			l = *sn.Safety // the mark stays as it was: kept all the same
		}
		note = &SafetyNote{Snapshot: sn.ID, Safety: l}
	}
	return note
}
