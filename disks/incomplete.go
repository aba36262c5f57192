package disks

import (
	"fmt"

	"rambar/keeper"
	"rambar/ramdisk"
)

// Only a disk whose restore or load finished may be saved over its saved
// state: the Keeper's fill record says which did not (keeper.ErrIncomplete).
// Without a data folder nothing is filled, and nothing is incomplete.

// markRestoring records that a restore or load of the disk at mountPoint begins.
func (s *Service) markRestoring(name, mountPoint string) error {
	if k, err := s.Keeper(); err == nil {
		return k.BeginFill(name, mountPoint)
	}
	return nil
}

// restored removes the record: the restore finished (or the partial disk
// is gone and the saved copy was kept).
func (s *Service) restored(name string) {
	if k, err := s.Keeper(); err == nil {
		k.Filled(name)
	}
}

// Incomplete reports whether v holds only part of its saved state: its
// restore or load began and never finished.
func (s *Service) Incomplete(v ramdisk.Volume) bool {
	k, err := s.Keeper()
	return err == nil && k.Incomplete(v)
}

// incompleteErr is the refusal to save an incomplete disk, in a Mirror
// disk's words when it is one: its folder is untouched, and it is reloaded
// by making it again. verb, when set, starts the message ("save Work: …").
func (s *Service) incompleteErr(verb string, v ramdisk.Volume) error {
	if verb != "" {
		verb += " " + v.Name + ": "
	}
	if _, st, err := s.keptState(v.Name); err == nil && st.Mode == ramdisk.Mirror {
		return fmt.Errorf("%s%w: RAMBar was stopped while loading it from %s, so it holds only part of the folder, "+
			"and writing it back would cut the folder down; the folder is untouched. Reload it: 'rambar eject %s --no-save', "+
			"then create it again with --mirror %s", verb, keeper.ErrIncomplete, st.MirrorPath, v.Name, st.MirrorPath)
	}
	return fmt.Errorf("%s%w: RAMBar was stopped while restoring it, so it holds only part of its saved state, "+
		"and saving it would replace the whole saved copy; finish the restore with 'rambar restore %s --force', "+
		"or eject it with 'rambar eject %s --force' (the saved copy is kept)", verb, keeper.ErrIncomplete, v.Name, v.Name)
}
