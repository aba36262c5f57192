package keeper

import (
	"os"
	"path/filepath"

	"rambar/foldersync"
	"rambar/internal/record"
	"rambar/ramdisk"
)

// PendingTemps lists the lists of temporary names a stopped write-back or
// refresh left in the stores (foldersync.TempLists): the names they made
// in a Mirror folder, or on a disk, that the next save or refresh of the
// disk removes. Key is the disk's name, Step what was stopped.
func (k *Keeper) PendingTemps() []record.Pending {
	if k.Data == "" {
		return nil
	}
	ents, _ := os.ReadDir(filepath.Join(k.Data, "disks"))
	var out []record.Pending
	for _, e := range ents {
		if !e.IsDir() || ramdisk.ValidateName(e.Name()) != nil {
			continue
		}
		store := filepath.Join(k.Data, "disks", e.Name())
		folder, disk := foldersync.TempLists(store)
		for _, l := range []struct {
			path, step string
		}{
			{folder, "write-back"},
			{disk, "refresh"},
		} {
			if st, err := os.Lstat(l.path); err == nil && st.Mode().IsRegular() {
				out = append(out, record.Pending{Op: "temporary names", Key: e.Name(), Step: l.step, Path: l.path})
			}
		}
	}
	return out
}
