package disks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/keeper"
	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// memService is the use cases over the in-memory engine, whose disks are
// folders (so the keeper is told they are mounted).
func memService(t *testing.T) (*Service, *ramdisktest.Mem) {
	root := t.TempDir()
	mem := ramdisktest.NewMem(filepath.Join(root, "vols"), ramdisk.Memory{Physical: 16 * ramdisk.GiB})
	os.MkdirAll(mem.Root, 0o700)
	s := &Service{Engine: mem, Paths: ramdisk.Paths{Settings: filepath.Join(root, "settings.plist"), Data: filepath.Join(root, "data")},
		NewKeeper: func(data string) *keeper.Keeper {
			k := keeper.NewKeeper(data)
			k.IsMounted = func(dir string) bool { _, err := os.Stat(dir); return err == nil }
			return k
		}}
	return s, mem
}

func TestCreateRefusesBadInputFirst(t *testing.T) {
	s, mem := memService(t)
	for _, tc := range []struct {
		in   ramdisk.Input
		want error
	}{
		{ramdisk.Input{Name: "", Size: "1G"}, ramdisk.ErrName},
		{ramdisk.Input{Name: "a/b", Size: "1G"}, ramdisk.ErrName},
		{ramdisk.Input{Name: "Ok", Size: "lots"}, ramdisk.ErrSize},
		{ramdisk.Input{Name: "Ok", Size: "-1G"}, ramdisk.ErrSize},
		{ramdisk.Input{Name: "Ok", Size: "64G"}, ramdisk.ErrTooLarge},
	} {
		planned := false
		_, err := s.Create(context.Background(), CreateRequest{Input: tc.in, Planned: func(ramdisk.Plan) { planned = true }})
		if !errors.Is(err, tc.want) || planned {
			t.Errorf("Create(%+v) = %v (planned %v), want %v", tc.in, err, planned, tc.want)
		}
	}
	if vs, _ := mem.List(context.Background()); len(vs) != 0 {
		t.Errorf("disks made: %v", vs)
	}
}

func TestKeptDiskSavedAtEjectAndRestoredAtCreate(t *testing.T) {
	s, _ := memService(t)
	ctx := context.Background()
	var progress []ramdisk.Progress
	c, err := s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Work", Size: "64M"}, Contents: keeper.Options{Mode: ramdisk.Keep}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Contents.Mode != ramdisk.Keep || c.Loaded.Snapshot != "" {
		t.Errorf("created %+v", c)
	}
	os.WriteFile(filepath.Join(c.Volume.MountPoint, "notes.txt"), []byte("hello"), 0o644)
	ej, err := s.Eject(ctx, c.Volume, EjectOptions{Progress: func(p ramdisk.Progress) { progress = append(progress, p) }})
	if err != nil || ej.Saved == nil || ej.Saved.Files != 1 {
		t.Fatalf("eject: %+v, %v", ej, err)
	}
	if len(progress) == 0 || progress[len(progress)-1].Disk != "Work" {
		t.Errorf("save progress: %+v", progress)
	}
	// A save of the ejected disk is refused as gone, not saved as empty.
	if _, err := s.Save(ctx, c.Volume, SaveOptions{}); !errors.Is(err, ramdisk.ErrNotFound) {
		t.Errorf("save after eject: %v", err)
	}
	c, err = s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Work", Size: "64M"}, Contents: keeper.Options{Mode: ramdisk.Keep}})
	if err != nil || c.Loaded.Files != 1 {
		t.Fatalf("create again: %+v, %v", c.Loaded, err)
	}
	if b, _ := os.ReadFile(filepath.Join(c.Volume.MountPoint, "notes.txt")); string(b) != "hello" {
		t.Errorf("restored %q", b)
	}
}

func TestIncompleteRestoreIsNeverSavedOver(t *testing.T) {
	s, _ := memService(t)
	ctx := context.Background()
	keep := keeper.Options{Mode: ramdisk.Keep}
	c, err := s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Work", Size: "64M"}, Contents: keep})
	if err != nil {
		t.Fatal(err)
	}
	v := c.Volume
	os.WriteFile(filepath.Join(v.MountPoint, "a.txt"), []byte("whole"), 0o644)
	if _, err := s.Save(ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if s.Incomplete(v) {
		t.Fatal("a disk whose load finished is incomplete")
	}
	// A restore over the very files saved is no change and no refusal.
	if r, err := s.Restore(ctx, v, RestoreOptions{}); err != nil || !r.Unchanged || s.Incomplete(v) {
		t.Fatalf("restore over the snapshot the disk holds: %+v, %v, incomplete %v", r, err, s.Incomplete(v))
	}
	// A refused restore (the disk holds other files) changes nothing: still whole.
	os.WriteFile(filepath.Join(v.MountPoint, "b.txt"), []byte("unsaved"), 0o644)
	if _, err := s.Restore(ctx, v, RestoreOptions{}); !errors.Is(err, keeper.ErrRefused) || s.Incomplete(v) {
		t.Fatalf("refused restore: %v, incomplete %v", err, s.Incomplete(v))
	}
	// A restore cut short (as by kill -9) leaves the record behind.
	if err := s.markRestoring(v.Name, v.MountPoint); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(v.MountPoint, "a.txt"), []byte("part"), 0o644)
	if !s.Incomplete(v) {
		t.Fatal("not incomplete")
	}
	if _, err := s.Save(ctx, v, SaveOptions{}); !errors.Is(err, keeper.ErrIncomplete) {
		t.Errorf("save: %v", err)
	}
	if err := s.SaveAll(ctx, nil, func(name string, _ keeper.Result, err error) { t.Errorf("SaveAll saved %s: %v", name, err) }); err != nil {
		t.Errorf("SaveAll: %v", err)
	}
	if _, err := s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Work", Size: "64M"}, Contents: keep}); !errors.Is(err, ramdisk.ErrExists) ||
		!strings.Contains(err.Error(), "eject Work --force") {
		t.Errorf("create over it: %v", err)
	}
	if _, err := s.Eject(ctx, v, EjectOptions{}); !errors.Is(err, keeper.ErrIncomplete) {
		t.Errorf("eject: %v", err)
	}
	if _, err := s.Eject(ctx, v, EjectOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	c, err = s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Work", Size: "64M"}, Contents: keep})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(c.Volume.MountPoint, "a.txt")); string(b) != "whole" || s.Incomplete(c.Volume) {
		t.Errorf("after create: %q, incomplete %v", b, s.Incomplete(c.Volume))
	}
}
