package tray

import (
	"context"
	"fmt"
	"rambar/settingsfile"
	"testing"
	"time"

	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// BenchmarkBuild is the cost of turning a state with three disks into a menu.
func BenchmarkBuild(b *testing.B) {
	s := menuState{Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings(),
		Features: featureSet{SaveNow: true, Reclaim: true, Benchmark: true, EditPresets: true, LaunchAtLogin: true}}
	for i := 0; i < 3; i++ {
		s.Disks = append(s.Disks, measuredDisk(vol(fmt.Sprintf("Disk %d", i), 4*ramdisk.GiB, ramdisk.APFS), ramdisk.GiB, 2*ramdisk.GiB))
	}
	b.ReportAllocs()
	for b.Loop() {
		buildMenu(s)
	}
}

// BenchmarkRefresh is one refresh of the controller (List, Memory, Usage of
// three disks, settings read, menu rebuilt) over the in-memory engine: the
// tray's own overhead on top of the engine's calls.
func BenchmarkRefresh(b *testing.B) {
	mem := ramdisktest.NewMem(b.TempDir(), gb16)
	for i := 0; i < 3; i++ {
		mem.Create(context.Background(), ramdisk.Plan{Name: fmt.Sprintf("D%d", i), Size: ramdisk.GiB, FS: ramdisk.TmpFS, Allocation: ramdisk.AllocOnWrite})
	}
	ui := &fakeUI{}
	c := New(Deps{Engine: mem, Store: settingsfile.Store{Path: b.TempDir() + "/settings.plist"}, Refresh: time.Hour}, ui)
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() { c.Run(ctx); close(ended) }()
	defer func() { cancel(); <-ended }()
	done := make(chan struct{}, 1)
	b.ReportAllocs()
	for b.Loop() {
		c.post(func() {
			c.refresh(true)
			c.enqueue(func(context.Context) { c.post(func() { done <- struct{}{} }) })
		})
		<-done
	}
	b.ReportMetric(float64(c.RefreshCost().Microseconds()), "µs-engine/op")
}
