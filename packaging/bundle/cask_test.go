package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/login"
	"rambar/ramdisk"
)

// TestCaskMatchesTheApp keeps packaging/rambar.rb in step with what the app
// really installs: its bundle, executable, login item label and settings
// path; and checks zap never names the saved contents.
func TestCaskMatchesTheApp(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "rambar.rb"))
	if err != nil {
		t.Fatal(err)
	}
	cask := string(data)
	paths, err := ramdisk.DefaultPaths("darwin", func(k string) string {
		if k == "HOME" {
			return "~"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`app "RAMBar.app"`,
		`binary "#{appdir}/RAMBar.app/Contents/MacOS/` + Executable + `"`,
		`launchctl: "` + login.Label + `"`,
		`quit:      "` + BundleID + `"`,
		`"` + paths.Settings + `"`,
		`"~/Library/LaunchAgents/` + login.Label + `.plist"`,
		`rmdir: "` + filepath.Dir(paths.Settings) + `"`,
		"/releases/latest/download/RAMBar.dmg",
	} {
		if !strings.Contains(cask, want) {
			t.Errorf("cask lacks %s", want)
		}
	}
	if strings.Contains(cask, `"`+paths.Data) || strings.Contains(cask, `trash: "`+filepath.Dir(paths.Settings)+`"`) {
		t.Errorf("cask zaps the saved disk contents in %s", paths.Data)
	}
	if login.Label != BundleID {
		t.Errorf("login item label %s differs from the bundle id %s", login.Label, BundleID)
	}
}
