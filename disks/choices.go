package disks

import (
	"rambar/keeper"
	"rambar/ramdisk"
)

// requestChoices are the options of a disk to make that can clash: its
// contents (as asked, else its preset's) and its mount point.
func requestChoices(r CreateRequest) ramdisk.Choices {
	o := r.Contents
	if o.Mode == ramdisk.Discard && r.Preset != nil {
		o = keeper.OptionsFromPreset(*r.Preset)
	}
	return ramdisk.Choices{Contents: o.Mode, MirrorPath: o.MirrorPath, InPlace: o.InPlace, MountPoint: r.Options.MountPoint}
}
