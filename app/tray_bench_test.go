//go:build linux

package main

import (
	"context"
	"fmt"
	"testing"

	"rambar/internal/run"
	"rambar/linux"
	"rambar/ramdisk"
)

// BenchmarkTrayRefreshLinux is the engine work of one tray refresh with
// three real tmpfs disks: List, Memory and Usage of each (make bench-tray).
func BenchmarkTrayRefreshLinux(b *testing.B) {
	ctx := context.Background()
	e := linux.New(run.System(), linux.WithMountRoot(b.TempDir()))
	var made []ramdisk.Volume
	b.Cleanup(func() {
		for _, v := range made {
			if err := e.Eject(ctx, v, true); err != nil {
				b.Errorf("cleanup: %v", err)
			}
		}
	})
	for i := 0; i < 3; i++ {
		name := fmt.Sprintf("Bench %d", i)
		p, err := ramdisk.NewPlan(ramdisk.Request{Name: name, Size: 64 * ramdisk.MiB}, ramdisk.Facts{Caps: e.Caps()})
		if err != nil {
			b.Fatal(err)
		}
		v, err := e.Create(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		made = append(made, v)
	}
	b.ReportAllocs()
	for b.Loop() {
		vs, err := e.List(ctx)
		if err != nil || len(vs) != 3 {
			b.Fatalf("List: %d volumes, %v", len(vs), err)
		}
		if _, err := e.Memory(ctx); err != nil {
			b.Fatal(err)
		}
		for _, v := range vs {
			if _, err := e.Usage(ctx, v); err != nil {
				b.Fatal(err)
			}
		}
	}
}
