package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportLayers keeps the imports going one way (DESIGN.md, Layout):
// ramdisk imports nothing of the project; settingsfile stores its
// settings; tray, mirror and bench import ramdisk; tree (reading and
// making trees) and snapstore (the store of snapshots, over tree) import
// nothing above them, and mirror builds on both; darwin and linux import ramdisk and
// internal/run; disks (the use cases) imports the domain packages (ramdisk,
// mirror) but no engine, front end or unrelated feature, and nothing but app
// and selftest (the self-test's use case, over disks) imports disks; ramdisk
// imports neither engines nor UI; only app imports everything.
func TestImportLayers(t *testing.T) {
	forbidden := map[string][]string{
		// The portable core imports nothing of the project (its settings
		// file is package settingsfile's).
		"rambar/ramdisk":      {"rambar/darwin", "rambar/linux", "rambar/tray", "rambar/mirror", "rambar/bench", "rambar/disks", "rambar/internal/run", "rambar/internal/atomicfile", "rambar/settingsfile", "fyne.io/systray"},
		"rambar/settingsfile": {"rambar/darwin", "rambar/linux", "rambar/tray", "rambar/mirror", "rambar/bench", "rambar/disks", "rambar/internal/run", "fyne.io/systray"},
		"rambar/disks":        {"rambar/darwin", "rambar/darwin/cocoa", "rambar/linux", "rambar/tray", "rambar/bench", "rambar/login", "rambar/selftest", "fyne.io/systray"},
		// The self-test's checks of the engine and the store: the use cases,
		// no engine of its own, no native side (app adds those checks).
		"rambar/selftest": {"rambar/darwin", "rambar/darwin/cocoa", "rambar/linux", "rambar/tray", "rambar/bench", "rambar/login", "fyne.io/systray"},
		"rambar/darwin":   {"rambar/linux", "rambar/tray", "rambar/mirror", "rambar/bench", "rambar/disks", "fyne.io/systray"},
		"rambar/linux":    {"rambar/darwin", "rambar/tray", "rambar/mirror", "rambar/bench", "rambar/disks", "fyne.io/systray"},
		"rambar/tray":     {"rambar/darwin", "rambar/darwin/cocoa", "rambar/linux", "rambar/bench", "rambar/mirror", "rambar/login", "rambar/disks", "rambar/internal/run"},
		// Reading and making trees: nothing of snapshots, mirror folders or
		// the use cases.
		"rambar/tree":   {"rambar/mirror", "rambar/darwin", "rambar/linux", "rambar/tray", "rambar/bench", "rambar/disks", "rambar/settingsfile", "fyne.io/systray"},
		"rambar/mirror": {"rambar/darwin", "rambar/linux", "rambar/tray", "rambar/bench", "rambar/disks", "fyne.io/systray"},
		"rambar/login":  {"rambar/darwin", "rambar/darwin/cocoa", "rambar/linux", "rambar/tray", "rambar/mirror", "rambar/bench", "rambar/disks", "fyne.io/systray"},
		"rambar/bench":  {"rambar/darwin", "rambar/linux", "rambar/tray", "rambar/mirror", "rambar/disks", "fyne.io/systray"},
		// The native macOS parts stand alone: app adapts them to the tray.
		"rambar/darwin/cocoa": {"rambar/darwin", "rambar/linux", "rambar/tray", "rambar/mirror", "rambar/bench", "rambar/login", "rambar/disks", "fyne.io/systray"},
	}
	for _, goos := range []string{"linux", "darwin"} {
		for pkg, bad := range forbidden {
			cmd := exec.Command("go", "list", "-deps", pkg)
			cmd.Env = append(cmd.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
			out, err := cmd.Output()
			if err != nil {
				if strings.Contains(string(out)+err.Error(), "no Go files") {
					continue
				}
				t.Fatalf("go list -deps %s (GOOS=%s): %v", pkg, goos, err)
			}
			deps := map[string]bool{}
			for _, d := range strings.Fields(string(out)) {
				deps[d] = true
			}
			for _, b := range bad {
				if deps[b] {
					t.Errorf("GOOS=%s: %s imports %s", goos, pkg, b)
				}
			}
		}
	}
}
