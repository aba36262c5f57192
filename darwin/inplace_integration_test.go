//go:build darwin && integration

package darwin

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"rambar/internal/run"
	"rambar/ramdisk"
)

// TestIntegrationInPlace mounts a RAM disk over a non-empty folder under
// $HOME with the real diskutil (Mirror in place), and answers what the
// system then calls the folder: /Users/… or /System/Volumes/Data/Users/….
// Covers must know the disk over the folder either way (volume and inode),
// and the folder must hold its own files again once uncovered.
func TestIntegrationInPlace(t *testing.T) {
	ctx := context.Background()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(home, "RAMBarIT inplace "+strconv.Itoa(os.Getpid()))
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(folder) })
	if err := os.WriteFile(filepath.Join(folder, "own.txt"), []byte("the folder's own"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fs := range []ramdisk.FileSystem{ramdisk.APFS, ramdisk.HFSPlus} {
		t.Run(string(fs), func(t *testing.T) {
			e := New(run.System())
			v, err := e.Create(ctx, planOpts(t, e, "RAMBarIT InPlace", fs, ramdisk.VolumeOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Eject(ctx, v, true) })
			if v, err = e.Cover(ctx, v, folder); err != nil {
				t.Fatalf("Cover %s: %v", folder, err)
			}
			d, _ := e.diskInfo(ctx, folder)
			listed := ""
			if vs, err := e.List(ctx); err == nil {
				for _, l := range vs {
					if l.Name == "RAMBarIT InPlace" {
						listed = l.MountPoint
					}
				}
			}
			t.Logf("%s over %s: diskutil info says %q, List says %q, same string: %v", fs, folder, d.MountPoint, listed, d.MountPoint == folder)
			if !e.Covers(ctx, v, folder) {
				t.Fatalf("Covers(%s) is false with the disk mounted there (diskutil: %q)", folder, d.MountPoint)
			}
			if _, err := os.Stat(filepath.Join(folder, "own.txt")); !os.IsNotExist(err) {
				t.Errorf("the covered folder still shows its own file (%v)", err)
			}
			off, err := e.Uncover(ctx, v, folder, false)
			if err != nil {
				t.Fatalf("Uncover: %v", err)
			}
			v = off
			if e.Covers(ctx, v, folder) {
				t.Error("Covers is true after Uncover")
			}
			if b, err := os.ReadFile(filepath.Join(folder, "own.txt")); err != nil || string(b) != "the folder's own" {
				t.Errorf("the uncovered folder holds %q (%v)", b, err)
			}
			if err := e.Eject(ctx, v, false); err != nil {
				t.Errorf("eject: %v", err)
			}
		})
	}
}
