package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestImportLayers keeps the imports going one way (DESIGN.md, Layout):
// ramdisk imports nothing of the project; settingsfile stores its
// settings; tray, keeper and bench import ramdisk; the contents packages
// stand in layers: tree (reading and making trees) below snapstore (the
// store of snapshots), below snapshot (saves and restores) and syncrec (a
// Mirror disk's sync record), which know nothing of each other; syncrec
// below foldersync (Mirror folders' sync), which knows nothing of snapshot;
// mirrorfolder (which folders may be mirrored and by which disk) over tree
// alone; all below keeper (the Keeper), and the change
// feed (changefeed) below them all, knowing none;
// darwin and linux import ramdisk and internal/run; disks (the use cases)
// imports the domain packages (ramdisk, keeper, of the contents
// packages the Keeper only) but no engine, front end or unrelated feature,
// and nothing but app and selftest (the self-test's use case, over disks)
// imports disks; ramdisk imports neither engines nor UI; only app imports
// everything.
func TestImportLayers(t *testing.T) {
	// What no contents package imports: engines, front ends, the use cases.
	notContents := []string{"rambar/darwin", "rambar/linux", "rambar/tray", "rambar/bench", "rambar/disks", "rambar/settingsfile", "fyne.io/systray"}
	forbidden := map[string][]string{
		// The portable core imports nothing of the project (its settings
		// file is package settingsfile's).
		"rambar/ramdisk":      {"rambar/darwin", "rambar/linux", "rambar/tray", "rambar/keeper", "rambar/bench", "rambar/disks", "rambar/internal/run", "rambar/internal/atomicfile", "rambar/settingsfile", "fyne.io/systray"},
		"rambar/settingsfile": {"rambar/darwin", "rambar/linux", "rambar/tray", "rambar/keeper", "rambar/bench", "rambar/disks", "rambar/internal/run", "fyne.io/systray"},
		"rambar/disks":        {"rambar/darwin", "rambar/darwin/cocoa", "rambar/linux", "rambar/tray", "rambar/bench", "rambar/login", "rambar/selftest", "fyne.io/systray"},
		// The cache feature, below the use cases it serves.
		"rambar/cache": {"rambar/disks", "rambar/darwin", "rambar/darwin/cocoa", "rambar/linux", "rambar/tray", "rambar/bench", "rambar/login", "rambar/selftest", "fyne.io/systray"},
		// A disk's custom icon knows only the option error of ramdisk.
		"rambar/volicon": {"rambar/disks", "rambar/keeper", "rambar/tree", "rambar/darwin", "rambar/linux", "rambar/tray", "rambar/internal/run", "fyne.io/systray"},
		// The records and step journals know nothing of the project.
		"rambar/internal/record": {"rambar/ramdisk", "rambar/tree", "rambar/keeper", "rambar/disks", "rambar/darwin", "rambar/linux", "rambar/tray"},
		// The self-test's checks of the engine and the store: the use cases,
		// no engine of its own, no native side (app adds those checks).
		"rambar/selftest": {"rambar/darwin", "rambar/darwin/cocoa", "rambar/linux", "rambar/tray", "rambar/bench", "rambar/login", "fyne.io/systray"},
		"rambar/darwin":   {"rambar/linux", "rambar/tray", "rambar/keeper", "rambar/bench", "rambar/disks", "fyne.io/systray"},
		"rambar/linux":    {"rambar/darwin", "rambar/tray", "rambar/keeper", "rambar/bench", "rambar/disks", "fyne.io/systray"},
		"rambar/tray":     {"rambar/darwin", "rambar/darwin/cocoa", "rambar/linux", "rambar/bench", "rambar/keeper", "rambar/login", "rambar/disks", "rambar/internal/run"},
		// The contents packages, each knowing only those below it; the
		// change feed, below them all, knows none.
		"rambar/changefeed": append([]string{"rambar/ramdisk", "rambar/tree", "rambar/snapstore", "rambar/syncrec", "rambar/snapshot", "rambar/foldersync", "rambar/mirrorfolder", "rambar/keeper", "rambar/internal/run", "rambar/internal/atomicfile"}, notContents...),
		"rambar/tree":       append([]string{"rambar/snapstore", "rambar/syncrec", "rambar/snapshot", "rambar/foldersync", "rambar/mirrorfolder", "rambar/keeper"}, notContents...),
		"rambar/snapstore":  append([]string{"rambar/syncrec", "rambar/snapshot", "rambar/foldersync", "rambar/mirrorfolder", "rambar/keeper"}, notContents...),
		"rambar/syncrec":    append([]string{"rambar/snapshot", "rambar/foldersync", "rambar/mirrorfolder", "rambar/keeper"}, notContents...),
		"rambar/snapshot":   append([]string{"rambar/syncrec", "rambar/foldersync", "rambar/mirrorfolder", "rambar/keeper"}, notContents...),
		"rambar/foldersync": append([]string{"rambar/snapshot", "rambar/mirrorfolder", "rambar/keeper"}, notContents...),
		"rambar/keeper":     notContents,
		"rambar/login":      {"rambar/darwin", "rambar/darwin/cocoa", "rambar/linux", "rambar/tray", "rambar/keeper", "rambar/bench", "rambar/disks", "fyne.io/systray"},
		"rambar/bench":      {"rambar/darwin", "rambar/linux", "rambar/tray", "rambar/keeper", "rambar/disks", "fyne.io/systray"},
		// Which folders may be mirrored, and by which disk: over tree alone,
		// below keeper, known to no other contents package.
		"rambar/mirrorfolder": append([]string{"rambar/snapstore", "rambar/syncrec", "rambar/snapshot", "rambar/foldersync", "rambar/keeper"}, notContents...),
		// The local API carries command lines and output: it knows no verb,
		// no disk, nothing of the project.
		"rambar/localapi": {"rambar/ramdisk", "rambar/darwin", "rambar/linux", "rambar/tray", "rambar/keeper", "rambar/bench", "rambar/disks", "rambar/login", "rambar/settingsfile", "rambar/internal/run", "rambar/internal/atomicfile", "fyne.io/systray"},
		// The native macOS parts stand alone: app adapts them to the tray.
		"rambar/darwin/cocoa": {"rambar/darwin", "rambar/linux", "rambar/tray", "rambar/keeper", "rambar/bench", "rambar/login", "rambar/disks", "fyne.io/systray"},
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

// TestUseCasesTalkToTheKeeperOnly: of the contents packages, disks, the
// self-test, the CLI and the contents' benchmark import the Keeper's
// package only, never what it is built on (tree, snapstore, syncrec,
// snapshot, foldersync, mirrorfolder); tests may reach below.
func TestUseCasesTalkToTheKeeperOnly(t *testing.T) {
	below := []string{"rambar/tree", "rambar/snapstore", "rambar/syncrec", "rambar/snapshot", "rambar/foldersync", "rambar/mirrorfolder"}
	for _, pkg := range []string{"rambar/disks", "rambar/cache", "rambar/selftest", "rambar/app", "rambar/cmd/benchmirror"} {
		for _, goos := range []string{"linux", "darwin"} {
			cmd := exec.Command("go", "list", "-e", "-f", `{{join .Imports " "}}`, pkg) // -e: a package of one system only
			cmd.Env = append(cmd.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list %s (GOOS=%s): %v", pkg, goos, err)
			}
			imports := strings.Fields(string(out))
			for _, b := range below {
				if slices.Contains(imports, b) {
					t.Errorf("GOOS=%s: %s imports %s", goos, pkg, b)
				}
			}
		}
	}
}
