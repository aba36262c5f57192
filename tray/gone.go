package tray

import (
	"context"

	"rambar/ramdisk"
)

// LossTeller is what Disks may add to tell a disk that is gone from one
// ejected: *disks.Menu has it.
type LossTeller interface {
	// Lost reports whether disk v, mounted before and no more, was lost
	// (unmounted outside RAMBar, gone with its helper) rather than ejected
	// by a RAMBar of this data folder (the CLI, try, the agent, another
	// menu); it may wait, within ctx, for an eject under way to end.
	Lost(ctx context.Context, v ramdisk.Volume) bool
}

// goneHow asks, for each disk of before (this data folder's, as the last
// refresh knew them) that the listing vs lacks, whether it was lost; nil
// when Disks cannot tell (every one is then announced gone) or the
// listing failed.
func goneHow(ctx context.Context, d Disks, before, vs []ramdisk.Volume, lerr error) map[string]bool {
	lt, ok := d.(LossTeller)
	if !ok || lerr != nil {
		return nil
	}
	now := map[string]bool{}
	for _, v := range vs {
		now[v.Name] = true
	}
	lost := map[string]bool{}
	for _, v := range before {
		if !now[v.Name] {
			lost[v.Name] = lt.Lost(ctx, v)
		}
	}
	return lost
}
