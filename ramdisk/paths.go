package ramdisk

import (
	"errors"
	"path/filepath"
	"strings"
)

// Paths are where RAMBar keeps its files.
type Paths struct {
	// Settings is the settings plist.
	Settings string
	// Data holds saved contents (kept disks, snapshots, staging for Reclaim).
	Data string
}

// DefaultPaths returns the paths for an OS, reading HOME and XDG variables
// through getenv:
//
//	macOS: ~/Library/Application Support/RAMBar/Settings.plist, data beside it
//	Linux: $XDG_CONFIG_HOME/rambar/settings.plist, $XDG_DATA_HOME/rambar
//
// RAMBAR_HOME, when set, puts both in one folder (tests, portable installs).
func DefaultPaths(goos string, getenv func(string) string) (Paths, error) {
	if h := getenv("RAMBAR_HOME"); h != "" {
		return Paths{Settings: filepath.Join(h, "settings.plist"), Data: filepath.Join(h, "data")}, nil
	}
	home := getenv("HOME")
	if goos == "darwin" {
		if home == "" {
			return Paths{}, errors.New("HOME is not set")
		}
		base := filepath.Join(home, "Library", "Application Support", "RAMBar")
		return Paths{Settings: filepath.Join(base, "Settings.plist"), Data: filepath.Join(base, "Data")}, nil
	}
	cfg, data := getenv("XDG_CONFIG_HOME"), getenv("XDG_DATA_HOME")
	if (cfg == "" || data == "") && home == "" {
		return Paths{}, errors.New("neither HOME nor XDG_CONFIG_HOME/XDG_DATA_HOME is set")
	}
	if cfg == "" {
		cfg = filepath.Join(home, ".config")
	}
	if data == "" {
		data = filepath.Join(home, ".local", "share")
	}
	return Paths{Settings: filepath.Join(cfg, "rambar", "settings.plist"), Data: filepath.Join(data, "rambar")}, nil
}

// ScratchPrefix starts the name of a folder RAMBar makes at a disk's top
// level for its own passing work (the benchmark's files) and removes when
// done. Such folders are not contents: they are never saved or mirrored and
// never make a kept disk unsaved.
const ScratchPrefix = ".rambar-scratch-"

// IsScratch reports whether a top-level name is one of RAMBar's scratch folders.
func IsScratch(name string) bool { return strings.HasPrefix(name, ScratchPrefix) }
