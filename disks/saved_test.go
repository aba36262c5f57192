package disks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"rambar/keeper"
	"rambar/ramdisk"
)

// TestKeptNameWithoutKeep: a disk made without keeping under a kept name is
// not kept (no Save Now, no save at eject, no autosave), its saved contents
// wait, and Forget deletes them unless a kept disk of that name is mounted.
func TestKeptNameWithoutKeep(t *testing.T) {
	s, _ := memService(t)
	ctx := context.Background()
	mk := func(mode ramdisk.ContentMode) ramdisk.Volume {
		t.Helper()
		c, err := s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Work", Size: "64M"}, Contents: keeper.Options{Mode: mode}})
		if err != nil {
			t.Fatal(err)
		}
		return c.Volume
	}
	kept := mk(ramdisk.Keep)
	os.WriteFile(filepath.Join(kept.MountPoint, "notes.txt"), []byte("one"), 0o644)
	if _, err := s.CanForget(ctx, "Work"); !errors.Is(err, ErrStillKept) || !errors.Is(err, keeper.ErrRefused) {
		t.Errorf("CanForget of a mounted kept disk: %v", err)
	}
	if _, ok := s.NotKept(kept); ok {
		t.Error("a kept disk is NotKept")
	}
	if _, err := s.Eject(ctx, kept, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	plain := mk(ramdisk.Discard)
	sv, ok := s.NotKept(plain)
	if !ok || sv.Snapshots != 1 || sv.Bytes == 0 || sv.LastSave.IsZero() || sv.Dir == "" {
		t.Errorf("NotKept(plain) = %+v, %v", sv, ok)
	}
	if NewMenu(s).Kept(plain) {
		t.Error("the menu offers Save Now on a plain disk")
	}
	os.WriteFile(filepath.Join(plain.MountPoint, "other.txt"), []byte("x"), 0o644)
	ej, err := s.Eject(ctx, plain, EjectOptions{})
	if err != nil || ej.Saved != nil || ej.NotSaved != nil {
		t.Errorf("eject of the plain disk: %+v, %v; want neither saved nor refused", ej, err)
	}
	got, err := s.Forget(ctx, "Work")
	if err != nil || got.Snapshots != 1 {
		t.Fatalf("Forget = %+v, %v", got, err)
	}
	if _, ok, _ := s.SavedContents("Work"); ok {
		t.Error("saved contents still there")
	}
	if _, err := s.Forget(ctx, "Work"); !errors.Is(err, ErrNothingSaved) {
		t.Errorf("Forget again: %v", err)
	}
	if _, err := s.Forget(ctx, "../x"); !errors.Is(err, ramdisk.ErrName) {
		t.Errorf("Forget(bad name): %v", err)
	}
}
