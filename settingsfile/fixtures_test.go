package settingsfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"rambar/ramdisk"
	"reflect"
	"testing"

	"howett.net/plist"
)

// copyFixture copies testdata/name into a temp folder and returns a Store on it.
func copyFixture(t *testing.T, name string) Store {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "settings.plist")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return Store{Path: p}
}

// TestLoadEveryVersion: a file written by every older RAMBar still loads, migrated.
func TestLoadEveryVersion(t *testing.T) {
	tests := []struct {
		file string
		want ramdisk.Settings
	}{
		{"settings-v1.plist", ramdisk.Settings{Version: ramdisk.SettingsVersion, CheckForUpdatesDaily: true, ShowMemoryInTitle: true, EjectOnQuit: ramdisk.QuitEject, Presets: []ramdisk.Preset{
			{Name: "Scratch", Size: "4096M", FS: ramdisk.APFS, AutoMount: true},
			{Name: "Build Cache", Size: "2048M", FS: ramdisk.HFSPlus, Hidden: true},
			{Name: "Cases", Size: "512M", FS: ramdisk.APFSCase},
		}}},
		{"settings-v2.plist", ramdisk.Settings{Version: ramdisk.SettingsVersion, CheckForUpdatesDaily: true, EjectOnQuit: ramdisk.QuitLeave, Presets: []ramdisk.Preset{
			{Name: "Scratch", Size: "25%", FS: ramdisk.HFSPlus, AutoMount: true, Contents: ramdisk.Keep, SaveEvery: 600, Snapshots: 3},
			{Name: "Xcode DerivedData", Size: "8G", Hidden: true, Contents: ramdisk.Mirror, MirrorPath: "/Users/ada/Library/Developer/Xcode/DerivedData"},
		}}},
		{"settings-v3.plist", ramdisk.Settings{Version: ramdisk.SettingsVersion, CheckForUpdatesDaily: true, ShowMemoryInTitle: true, EjectOnQuit: ramdisk.QuitEject, Presets: []ramdisk.Preset{
			{Name: "Downloads", Size: "2G", NoExec: true, Folders: []string{"incoming", "unpacked/zips"},
				MountPoint: "/Users/ada/RAM Downloads", Icon: "/Users/ada/Pictures/downloads.png"},
			{Name: "Build", Size: "8G", AutoMount: true, Spotlight: true,
				Caches: []string{"/Users/ada/Library/Developer/Xcode/DerivedData", "/Users/ada/Library/Caches/go-build"}},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			st := copyFixture(t, tt.file)
			got, err := st.Load()
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Load:\n got %+v\nwant %+v", got, tt.want)
			}
			if err := got.Validate(16 * ramdisk.GiB); err != nil {
				t.Errorf("migrated settings do not validate: %v", err)
			}
			// A save writes the current version, and reading it back gives the same.
			if err := st.Save(got); err != nil {
				t.Fatalf("Save: %v", err)
			}
			again, err := st.Load()
			if err != nil {
				t.Fatalf("Load after Save: %v", err)
			}
			if !reflect.DeepEqual(again, tt.want) {
				t.Errorf("after Save:\n got %+v\nwant %+v", again, tt.want)
			}
			data, _ := os.ReadFile(st.Path)
			var head struct{ Version int }
			if _, err := plist.Unmarshal(data, &head); err != nil || head.Version != ramdisk.SettingsVersion {
				t.Errorf("saved file has version %d (%v), want %d", head.Version, err, ramdisk.SettingsVersion)
			}
		})
	}
}

// TestRefusedUntouched: a corrupt file or one from a newer RAMBar is refused by
// Load, Save and Update, and its bytes stay as they were.
func TestRefusedUntouched(t *testing.T) {
	tests := []struct {
		file string
		want error
	}{
		{"settings-corrupt.plist", ramdisk.ErrSettingsCorrupt},
		{"settings-v4.plist", ramdisk.ErrSettingsNewer},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			st := copyFixture(t, tt.file)
			before, _ := os.ReadFile(st.Path)
			if _, err := st.Load(); !errors.Is(err, tt.want) {
				t.Errorf("Load: got %v, want %v", err, tt.want)
			}
			if err := st.Save(ramdisk.DefaultSettings()); !errors.Is(err, tt.want) {
				t.Errorf("Save: got %v, want %v", err, tt.want)
			}
			_, err := st.Update(16*ramdisk.GiB, func(s *ramdisk.Settings) error {
				return s.AddPreset(ramdisk.Preset{Name: "New", Size: "1G"}, 16*ramdisk.GiB)
			})
			if !errors.Is(err, tt.want) {
				t.Errorf("Update: got %v, want %v", err, tt.want)
			}
			after, _ := os.ReadFile(st.Path)
			if !bytes.Equal(before, after) {
				t.Errorf("file changed")
			}
			ents, _ := os.ReadDir(filepath.Dir(st.Path))
			if len(ents) != 1 {
				t.Errorf("folder holds %d entries, want only the settings file", len(ents))
			}
		})
	}
}

// TestDecodeSettingsBad: files that are not settings at all.
