//go:build cgo || !darwin

package tray

import (
	"runtime"
	"testing"

	"rambar/ramdisk"
)

func TestShapeDecidesRebuild(t *testing.T) {
	d := measuredDisk(vol("A", ramdisk.GiB, ramdisk.TmpFS), 0, 0)
	s := menuState{Disks: []diskState{d}, Memory: gb16, Caps: linux, Settings: ramdisk.DefaultSettings()}
	base := shapeOf(buildMenu(s).Items)

	// Figures, titles and ticks change in place.
	grown := s
	grown.Disks = []diskState{measuredDisk(vol("A", ramdisk.GiB, ramdisk.TmpFS), 300*ramdisk.MiB, 300*ramdisk.MiB)}
	grown.Settings.ShowMemoryInTitle = true
	if shapeOf(buildMenu(grown).Items) != base {
		t.Error("a change of figures and a tick rebuilt the menu")
	}
	// A new disk, a busy eject (Force Eject appears) or a new warning rebuild it.
	more := s
	more.Disks = append([]diskState{d}, measuredDisk(vol("B", ramdisk.GiB, ramdisk.TmpFS), 0, 0))
	busy := s
	bd := d
	bd.Busy = &ramdisk.BusyError{Volume: "A"}
	busy.Disks = []diskState{bd}
	swap := s
	swap.Memory.SwapUsed = ramdisk.GiB
	for name, st := range map[string]menuState{"new disk": more, "busy": busy, "swapping": swap} {
		if shapeOf(buildMenu(st).Items) == base {
			t.Errorf("%s: the menu's shape did not change", name)
		}
	}
}

func TestLabelEscapesMnemonics(t *testing.T) {
	want := "my__disk: 1 GB"
	if runtime.GOOS == "darwin" {
		want = "my_disk: 1 GB"
	}
	if got := label("my_disk: 1 GB"); got != want {
		t.Errorf("label = %q, want %q", got, want)
	}
}
