package ramdisk

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckChoices: every combination of options that cannot work together
// is refused with one line naming them (an ErrOption), and the ones that
// can are let through.
func TestCheckChoices(t *testing.T) {
	mirror := Choices{Contents: Mirror, MirrorPath: "/home/u/site"}
	with := func(c Choices, f func(*Choices)) Choices { f(&c); return c }
	for _, tt := range []struct {
		name string
		c    Choices
		why  string // "" when accepted
	}{
		{"nothing", Choices{}, ""},
		{"mirror", mirror, ""},
		{"mirror in place", with(mirror, func(c *Choices) { c.InPlace = true }), ""},
		{"mirror at a mount point beside it", with(mirror, func(c *Choices) { c.MountPoint = "/home/u/site-ram" }), ""},
		{"keep at a mount point", Choices{Contents: Keep, MountPoint: "/home/u/ram", Saving: true, Compress: true}, ""},
		{"keep and mirror", with(mirror, func(c *Choices) { c.KeepAndMirror = true }), "--keep and --mirror"},
		{"in place, kept", Choices{Contents: Keep, InPlace: true}, "--in-place goes with --mirror"},
		{"in place alone", Choices{InPlace: true}, "--in-place goes with --mirror"},
		{"in place with a mount point", with(mirror, func(c *Choices) { c.InPlace, c.MountPoint = true, "/home/u/mp" }), "--in-place and --mount-point"},
		{"mount point is the folder", with(mirror, func(c *Choices) { c.MountPoint = "/home/u/site/" }), "mirrored into itself"},
		{"mount point inside the folder", with(mirror, func(c *Choices) { c.MountPoint = "/home/u/site/ram" }), "mirrored into itself"},
		{"mount point around the folder", with(mirror, func(c *Choices) { c.MountPoint = "/home/u" }), "mirrored into itself"},
		{"create folder, kept", Choices{Contents: Keep, CreateFolder: true}, "--create-folder goes with --mirror"},
		{"set aside, kept", Choices{Contents: Keep, SetAsideKept: true}, "--set-aside-kept goes with --mirror"},
		{"snapshots, discarded", Choices{Saving: true}, "--snapshots and --save-every need"},
		{"compress, discarded", Choices{Compress: true}, "--compress needs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckChoices(tt.c)
			if tt.why == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), tt.why) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line with %q", err, tt.why)
			}
		})
	}
}

// TestPresetClashesRefused: a preset added or edited into a combination
// that cannot work together is refused and the settings are unchanged; a
// stored preset is checked by the same rule (Preset.Choices).
func TestPresetClashesRefused(t *testing.T) {
	s := DefaultSettings()
	p := Preset{Name: "Site", Size: "64M", Contents: Mirror, MirrorPath: "/home/u/site", InPlace: true}
	if err := s.AddPreset(p, 8<<30); err != nil {
		t.Fatal(err)
	}
	mp := "/home/u/mp"
	for _, tt := range []struct {
		name string
		c    PresetChange
		why  string
	}{
		{"a mount point for a preset in place", PresetChange{MountPoint: &mp}, "--in-place and --mount-point"},
		{"a mount point inside its folder", PresetChange{MountPoint: ptr("/home/u/site/ram"), InPlace: ptr(false)}, "mirrored into itself"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.EditPreset("Site", tt.c, 8<<30); !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), tt.why) {
				t.Fatalf("edit: %v, want %q", err, tt.why)
			}
			if got := s.Presets[0]; got.MountPoint != "" || !got.InPlace {
				t.Fatalf("the refused edit changed the preset: %+v", got)
			}
		})
	}
	bad := Preset{Name: "Other", Size: "64M", Contents: Mirror, MirrorPath: "/home/u/other", InPlace: true, MountPoint: mp}
	if err := s.AddPreset(bad, 8<<30); !errors.Is(err, ErrOption) || len(s.Presets) != 1 {
		t.Fatalf("add: %v (%d presets)", err, len(s.Presets))
	}
	if err := CheckChoices(bad.Choices()); err == nil {
		t.Fatal("a stored preset in place with a mount point passes the rule")
	}
}
