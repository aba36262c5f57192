package tray

import (
	"time"

	"rambar/ramdisk"
)

// diskFacts is what a refresh learns of a disk from the use cases, besides
// its usage and whether it is kept or unsaved.
type diskFacts struct {
	known      bool // the use cases were asked
	incomplete bool
	whose      ramdisk.Said
	inUse      int
	saved      time.Time
	changed    int
	conflicts  conflicts
	keptIn     int
	inPlace    string
}

// factsOf asks disks (nil: none) what it knows of v.
func factsOf(disks Disks, v ramdisk.Volume) diskFacts {
	if disks == nil {
		return diskFacts{}
	}
	f := diskFacts{known: true, incomplete: disks.Incomplete(v), whose: disks.Whose(v), inUse: disks.InUse(v),
		keptIn: disks.KeptInFolder(v), inPlace: disks.InPlace(v)}
	f.saved, f.changed = disks.SaveStatus(v)
	n, folder := disks.MirrorConflicts(v)
	f.conflicts = conflicts{n, folder}
	return f
}

// apply sets d's facts from f.
func (f diskFacts) apply(d *diskState) {
	d.Incomplete, d.Whose, d.InUse = f.incomplete, f.whose, f.inUse
	d.Saved, d.Changed = f.saved, f.changed
	if !f.known {
		d.Changed = -1
	}
	d.Conflicts = f.conflicts
	if d.Op != opRefreshing {
		d.KeptInFolder = f.keptIn
	}
	d.InPlace = f.inPlace
}
