package settingsfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rambar/internal/testproc"
	"rambar/ramdisk"
)

const v2WithUnknown = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
	<key>Version</key><integer>2</integer>
	<key>EjectOnQuit</key><string>ask</string>
	<key>FutureSetting</key><string>keep me</string>
	<key>Presets</key><array>
		<dict><key>Name</key><string>Work</string><key>Size</key><string>4G</string><key>Color</key><string>red</string></dict>
		<dict><key>Name</key><string>Gone</string><key>Size</key><string>1G</string><key>Color</key><string>blue</string></dict>
	</array>
</dict></plist>
`

// TestUpdateTurnsContinuousOff: the continuous-save keys, at the top and in
// a preset, are known: turned off, they stay off (not kept back from the
// old file as unknown).
func TestUpdateTurnsContinuousOff(t *testing.T) {
	st := Store{Path: filepath.Join(t.TempDir(), "settings.plist")}
	for _, on := range []bool{true, false, true, false} {
		_, err := st.Update(16*ramdisk.GiB, func(s *ramdisk.Settings) error {
			s.SaveContinuously = on
			if on {
				s.Presets = []ramdisk.Preset{{Name: "Live", Size: "1G", Contents: ramdisk.Keep, SaveAuto: true}}
				return nil
			}
			_, err := s.EditPreset("Live", ramdisk.PresetChange{SaveEvery: new(600)}, 16*ramdisk.GiB)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		s, err := st.Load()
		if err != nil {
			t.Fatal(err)
		}
		if s.SaveContinuously != on || len(s.Presets) != 1 || s.Presets[0].SaveAuto != on {
			t.Fatalf("turned %v, read back %+v", on, s)
		}
	}
}

func TestUpdateKeepsUnknownKeys(t *testing.T) {
	st := Store{Path: filepath.Join(t.TempDir(), "settings.plist")}
	os.WriteFile(st.Path, []byte(v2WithUnknown), 0o600)
	_, err := st.Update(16*ramdisk.GiB, func(s *ramdisk.Settings) error {
		if _, err := s.RemovePreset("Gone"); err != nil {
			return err
		}
		return s.AddPreset(ramdisk.Preset{Name: "New", Size: "1G"}, 16*ramdisk.GiB)
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(st.Path)
	got := string(b)
	for _, want := range []string{"<key>FutureSetting</key>", "keep me", "<key>Color</key>", "red", "New"} {
		if !strings.Contains(got, want) {
			t.Errorf("settings lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "blue") {
		t.Errorf("a removed preset's key came back:\n%s", got)
	}
	s, err := st.Load()
	if err != nil || len(s.Presets) != 2 || s.Presets[0].Name != "Work" || s.Presets[0].Size != "4G" {
		t.Errorf("reloaded %+v, %v", s, err)
	}
}

func TestSymlinkedSettingsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real", "settings.plist")
	os.MkdirAll(filepath.Dir(target), 0o700)
	os.WriteFile(target, []byte(v2WithUnknown), 0o600)
	link := filepath.Join(dir, "settings.plist")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	st := Store{Path: link}
	if _, err := st.Update(16*ramdisk.GiB, func(s *ramdisk.Settings) error { s.ShowMemoryInTitle = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if s, err := (Store{Path: target}).Load(); err != nil || !s.ShowMemoryInTitle {
		t.Errorf("target not written: %+v %v", s, err)
	}
	// A link that leads nowhere is refused, and left as it is.
	dangling := filepath.Join(dir, "dangling.plist")
	os.Symlink(filepath.Join(dir, "nowhere", "x.plist"), dangling)
	if _, err := (Store{Path: dangling}).Update(16*ramdisk.GiB, func(*ramdisk.Settings) error { return nil }); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("dangling link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dangling link's target was made: %v", err)
	}
}

func TestOutOfRangeNumbersRefusedAtLoad(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{"SaveEverySeconds", "9223372036854775807", "SaveEverySeconds 9223372036854775807 is out of range"},
		{"SaveEverySeconds", "-5", "must not be negative"},
		{"Snapshots", "100000", "Snapshots 100000 is out of range"},
	} {
		st := Store{Path: filepath.Join(t.TempDir(), "settings.plist")}
		data := strings.Replace(v2WithUnknown, "<key>Color</key><string>red</string>",
			"<key>Contents</key><string>keep</string><key>"+tc.key+"</key><integer>"+tc.value+"</integer>", 1)
		os.WriteFile(st.Path, []byte(data), 0o600)
		_, err := st.Load()
		if !errors.Is(err, ramdisk.ErrSettingsCorrupt) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: Load: %v", tc.key, tc.value, err)
		}
		if b, _ := os.ReadFile(st.Path); string(b) != data {
			t.Errorf("%s=%s: file changed", tc.key, tc.value)
		}
	}
}

func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	st := Store{Path: filepath.Join(t.TempDir(), "settings.plist")}
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "P" + string(rune('A'+i/26)) + string(rune('a'+i%26))
			if _, err := st.Update(16*ramdisk.GiB, func(s *ramdisk.Settings) error {
				return s.AddPreset(ramdisk.Preset{Name: name, Size: "1G"}, 16*ramdisk.GiB)
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if s, err := st.Load(); err != nil || len(s.Presets) != 40 {
		t.Errorf("%d presets after 40 concurrent adds (%v)", len(s.Presets), err)
	}
}

// TestAKilledWriteIsSweptByTheNext: a settings file's temporary copy that
// a writer killed between its write and its rename left is removed by the
// next write; a write under way (a live writer's) and other files stay.
func TestAKilledWriteIsSweptByTheNext(t *testing.T) {
	dir := t.TempDir()
	st := Store{Path: filepath.Join(dir, "settings.plist")}
	check := testproc.KilledWrites(t, dir, "settings.plist", "other.plist")
	if _, err := st.Update(16*ramdisk.GiB, func(s *ramdisk.Settings) error { return nil }); err != nil {
		t.Fatal(err)
	}
	check()
}
