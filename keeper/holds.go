package keeper

import (
	"rambar/ramdisk"
	"rambar/snapshot"
)

// Holding is the snapshot a disk's files were last saved as or restored
// from: after `restore --snapshot` of an older save it is that one, not the
// newest. "" when it cannot be told (never saved, or the index was lost).
// Whether the disk changed since is Dirty's answer.
func (k *Keeper) Holding(name string) (string, error) {
	st, err := k.State(name)
	if err != nil {
		return "", err
	}
	if x := k.store(st).LoadIndex(); x != nil {
		return x.Snapshot, nil
	}
	return "", nil
}

// Matches reports whether the mounted disk v holds exactly snapshot id: its
// files were last saved as or restored from id, it is the store's disk
// (Holds), and nothing on it changed since (compared as a save compares).
// A restore of id over it then loses nothing.
func (k *Keeper) Matches(v ramdisk.Volume, id string) (bool, error) {
	st, err := k.State(v.Name)
	if err != nil {
		return false, err
	}
	s := k.store(st)
	x := s.LoadIndex()
	if id == "" || x == nil || x.DiskID != st.ID || x.Snapshot != id || !k.Holds(v, st) {
		return false, nil
	}
	_, _, same, err := snapshot.ScanMatching(v.MountPoint, x.N, x, s.Caches)
	return same, err
}
