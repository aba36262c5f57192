package tray

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"rambar/settingsfile"

	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// TestCreateWarningIsNotified: a disk made from the menu whose use case
// left a warning note (a Mirror load that found work kept only in an old
// snapshot) is notified with that note; other notes are not.
func TestCreateWarningIsNotified(t *testing.T) {
	for _, tc := range []struct {
		name   string
		notes  []ramdisk.Said
		notify string // "" for none
	}{
		{"a warning", []ramdisk.Said{ramdisk.Plain("icon: not set"), ramdisk.Warn(ramdisk.Sayf("%s's snapshot %s holds %d paths that %s lacks (%s)",
			"Site", "20261206T100000.000000Z", 2, "/f", "draft.md, notes.md"))},
			"Site: work kept in a snapshot: Site's snapshot 20261206T100000.000000Z holds 2 paths"},
		{"a warning in English only", []ramdisk.Said{ramdisk.Plain(ramdisk.WarningNote + "Site's snapshot 20261206T100000.000000Z holds 1 path that /f lacks (draft.md)")},
			"Site: work kept in a snapshot: Site's snapshot 20261206T100000.000000Z holds 1 path"},
		{"no warning", []ramdisk.Said{ramdisk.Plain("icon: not set")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := settingsfile.Store{Path: filepath.Join(t.TempDir(), "settings.plist")}
			s := ramdisk.DefaultSettings()
			s.Presets = []ramdisk.Preset{{Name: "Site", Size: "1G", Contents: ramdisk.Mirror, MirrorPath: "/f"}}
			if err := st.Save(s); err != nil {
				t.Fatal(err)
			}
			h := start(t, func(d *Deps) {
				d.Store = st
				mem := d.Engine.(*ramdisktest.Mem)
				d.Disks = &fakeDisks{eng: d.Engine, mount: func(ctx context.Context, p ramdisk.Preset, _ ProgressFunc) (ramdisk.Volume, error) {
					v, err := mem.Create(ctx, ramdisk.Plan{Name: p.Name, Size: ramdisk.GiB, FS: ramdisk.TmpFS, Allocation: ramdisk.AllocOnWrite})
					v.Notes = tc.notes
					return v, err
				}}
			})
			h.waitFor("Presets\n  Site (1G)")
			h.c.Click("preset/Site")
			h.waitFor("Site — ")
			if tc.notify != "" {
				h.note(tc.notify)
				return
			}
			for len(h.notes) > 0 {
				if n := <-h.notes; strings.Contains(n, "work kept") {
					t.Errorf("notified %q", n)
				}
			}
		})
	}
}
