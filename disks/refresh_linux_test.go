//go:build linux

package disks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
)

// TestMenuTakesFolderChanges: the menu's count of changes kept in a
// Mirror disk's folder (real tmpfs, the real use case) is reused until the
// disk is saved or refreshed, Take Folder's Changes brings them onto the
// disk with progress and clears it; the refresh waits for the disk's lock
// (busy while another operation holds it), and a kept disk is refused.
func TestMenuTakesFolderChanges(t *testing.T) {
	f := newCacheFixture(t)
	ctx := context.Background()
	v, folder := f.mirrorDisk(t, "Site")
	m := NewMenu(f.s)
	if n := m.KeptInFolder(v); n != 0 {
		t.Fatalf("a freshly loaded disk: %d kept in the folder", n)
	}
	os.WriteFile(filepath.Join(folder, "new.html"), []byte("new"), 0o644)
	os.Remove(filepath.Join(folder, "index.html"))
	if n := m.KeptInFolder(v); n != 0 {
		t.Errorf("the count was walked again within %v: %d", keptEvery, n)
	}
	m.Forget(v.Name)
	if n := m.KeptInFolder(v); n != 2 {
		t.Errorf("after a new file and a deletion: %d kept in the folder, want 2", n)
	}
	f.s.LockWait = 200 * time.Millisecond
	release, err := f.s.lock(ctx, v.Name, "saving")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Refresh(ctx, v, nil); !errors.Is(err, ramdisk.ErrBusy) {
		t.Errorf("a refresh while the disk is locked: %v, want busy", err)
	}
	release()
	heard := 0
	n, err := m.Refresh(ctx, v, func(ramdisk.Progress) { heard++ })
	if err != nil || n != 2 || heard == 0 {
		t.Fatalf("Take Folder's Changes: %d taken, %d progress reports, %v", n, heard, err)
	}
	if b, err := os.ReadFile(filepath.Join(v.MountPoint, "new.html")); err != nil || string(b) != "new" {
		t.Errorf("the disk's new.html: %q %v", b, err)
	}
	absent(t, filepath.Join(v.MountPoint, "index.html"))
	if n := m.KeptInFolder(v); n != 0 {
		t.Errorf("after Take Folder's Changes: %d kept in the folder", n)
	}
	c, err := f.s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Kept", Size: "16M"}, Contents: keeper.Options{Mode: ramdisk.Keep}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.s.Eject(ctx, c.Volume, EjectOptions{Force: true}) })
	if _, err := f.s.Refresh(ctx, c.Volume, nil); !errors.Is(err, keeper.ErrNotMirror) {
		t.Errorf("a refresh of a kept disk: %v", err)
	}
	if n := m.KeptInFolder(c.Volume); n != 0 {
		t.Errorf("a kept disk: %d kept in a folder", n)
	}
}
