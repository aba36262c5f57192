package disks

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"rambar/keeper"
	"rambar/ramdisk"
)

// TestCheckMirrorPreset: one folder, one disk among the presets (the same
// folder or one inside the other is refused, siblings pass), a missing
// folder only with create, and a preset that mirrors nothing passes.
func TestCheckMirrorPreset(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"site", "site/inner", "other"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := &Service{Paths: ramdisk.Paths{Data: t.TempDir()}}
	mirror := func(name, dir string) ramdisk.Preset {
		return ramdisk.Preset{Name: name, Contents: ramdisk.Mirror, MirrorPath: filepath.Join(root, dir)}
	}
	others := []ramdisk.Preset{mirror("Site", "site"), {Name: "Scratch", Contents: ramdisk.Keep}}
	for _, c := range []struct {
		name    string
		p       ramdisk.Preset
		create  bool
		claimed bool
		refused error // a FolderRefused wrapping this
	}{
		{"kept", ramdisk.Preset{Name: "Kept", Contents: ramdisk.Keep}, false, false, nil},
		{"the same folder", mirror("Again", "site"), false, true, nil},
		{"a folder inside", mirror("Inner", "site/inner"), false, true, nil},
		{"a folder around", mirror("Outer", "."), false, true, nil},
		{"itself, edited", mirror("Site", "site"), false, false, nil},
		{"a sibling", mirror("Other", "other"), false, false, nil},
		{"missing", mirror("New", "new"), false, false, keeper.ErrFolderMissing},
		{"missing, to be made", mirror("New", "new"), true, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := s.CheckMirrorPreset(c.p, others, c.create)
			var refused FolderRefused
			switch {
			case c.claimed:
				if !errors.Is(err, keeper.ErrClaimed) || errors.As(err, &refused) {
					t.Errorf("err = %v, want claimed", err)
				}
			case c.refused != nil:
				if !errors.As(err, &refused) || !errors.Is(refused.Err, c.refused) {
					t.Errorf("err = %v, want a folder refused: %v", err, c.refused)
				}
			case err != nil:
				t.Errorf("err = %v, want none", err)
			}
		})
	}
}
