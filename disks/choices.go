package disks

import (
	"errors"
	"fmt"

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

// presetClashHint adds to a stored preset's refused combination (one an
// older RAMBar accepted, or a hand-edited settings file) how to change it.
func presetClashHint(err error, p ramdisk.Preset) error {
	var ce *ramdisk.ClashError
	if !errors.As(err, &ce) {
		return err
	}
	return fmt.Errorf("%w; change the preset: rambar preset edit %s with the options it needs (rambar help preset edit lists them)", err, quoteArg(p.Name))
}
