// Package login makes RAMBar start when the user logs in: a LaunchAgent in
// ~/Library/LaunchAgents on macOS (loaded with launchctl bootstrap, removed
// with launchctl bootout), an XDG autostart entry on Linux. The state it
// reports is read from the files that decide what happens at login, so the
// tray's "Launch at Login" checkbox shows what will really happen.
package login

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"rambar/internal/run"
	"rambar/ramdisk"
)

// Label is the LaunchAgent's label (the bundle identifier) and the base name
// of both files.
const Label = "app.rambar.RAMBar"

// ErrNoSession is wrapped when macOS has no GUI login session to load the
// agent into (an SSH login): the agent file is written and takes effect at the
// next login, but it cannot start now.
var ErrNoSession = errors.New("no GUI login session to load the login item into; it takes effect at the next login")

// Item is RAMBar's login item on one OS.
type Item struct {
	// GOOS is "darwin" or "linux".
	GOOS string
	// Dir is the folder the file lives in: ~/Library/LaunchAgents or
	// $XDG_CONFIG_HOME/autostart.
	Dir string
	// Executable is the absolute path of the program started at login.
	Executable string
	// UID is the user's id, for launchctl's gui/UID domain.
	UID int
	// Runner runs launchctl (macOS only).
	Runner run.Runner
	// SelfIsAgent is true when this process is the one launchd started for
	// Label (XPC_SERVICE_NAME says so): booting the job out would kill it, so
	// turning the item off then only removes the file.
	SelfIsAgent bool

	// Headless: the item starts `rambar agent` (the app without its menu)
	// as a service: a systemd user service on Linux, a LaunchAgent of its
	// own label on macOS (NewHeadless).
	Headless bool
	// Env are KEY=VALUE pairs the headless service starts with (the
	// data folder and mount root chosen by RAMBAR_HOME, RAMBAR_MOUNT_ROOT).
	Env []string

	// wait replaces the pause between launchctl retries (tests).
	wait func(ctx context.Context, d time.Duration) error
}

// Status is what the login item looks like now.
type Status struct {
	// Enabled: RAMBar starts at the next login.
	Enabled bool `json:"enabled"`
	// Path is the agent or autostart file.
	Path string `json:"path"`
	// Program is what the file starts ("" when there is no file).
	Program string `json:"program,omitempty"`
	// Stale: the file starts a program other than this one (RAMBar was moved
	// or another copy wrote it). Set(true) rewrites it.
	Stale bool `json:"stale"`
	// Loaded (macOS) is whether launchd has the job in this session; nil on
	// Linux or when launchctl could not tell.
	Loaded *bool `json:"loaded,omitempty"`
	// Kind is what starts: "menu bar" (the menu-bar app at login) or
	// "headless" (`rambar agent` as a service).
	Kind string `json:"kind"`
	// Active (a systemd user service) is whether it runs now; nil when
	// systemctl --user could not tell, and for the other kinds.
	Active *bool `json:"active,omitempty"`
}

// New describes the login item for goos from the environment (getenv reads
// HOME, XDG_CONFIG_HOME, XPC_SERVICE_NAME), for the program at exe. It
// refuses an exe that would not survive until the next login: a relative
// path, a copy Gatekeeper runs from a random translocated folder, or an app
// still on the mounted disk image (onDiskImage; an Applications folder on an
// external volume is accepted).
func New(goos string, getenv func(string) string, exe string, uid int, r run.Runner) (*Item, error) {
	if !filepath.IsAbs(exe) {
		return nil, fmt.Errorf("login item: program path %q is not absolute", exe)
	}
	it := &Item{GOOS: goos, Executable: filepath.Clean(exe), UID: uid, Runner: r}
	home := getenv("HOME")
	switch goos {
	case "darwin":
		if strings.Contains(exe, "/AppTranslocation/") || onDiskImage(exe) {
			return nil, fmt.Errorf("login item: RAMBar is running from %s, not from where it is installed; move RAMBar.app to Applications, open it from there, and try again", filepath.Dir(exe))
		}
		if home == "" {
			return nil, errors.New("login item: HOME is not set")
		}
		it.Dir = filepath.Join(home, "Library", "LaunchAgents")
		it.SelfIsAgent = getenv("XPC_SERVICE_NAME") == Label
	case "linux":
		cfg := getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(cfg) { // the spec says to ignore a relative value
			if home == "" {
				return nil, errors.New("login item: neither HOME nor XDG_CONFIG_HOME is set")
			}
			cfg = filepath.Join(home, ".config")
		}
		it.Dir = filepath.Join(cfg, "autostart")
	default:
		return nil, fmt.Errorf("login item on %s: %w", goos, ramdisk.ErrUnsupported)
	}
	return it, nil
}

// onDiskImage reports an app opened from the disk image it came on: a
// bundle at the root of a volume (/Volumes/RAMBar/RAMBar.app), as the dmg
// shows it. An Applications folder on an external volume
// (/Volumes/Ext/Applications/RAMBar.app) is a real install.
func onDiskImage(exe string) bool {
	rest, ok := strings.CutPrefix(filepath.Clean(exe), "/Volumes/")
	if !ok {
		return false
	}
	parts := strings.Split(rest, "/")
	return len(parts) >= 2 && strings.HasSuffix(parts[1], ".app")
}

// Path is the file that makes RAMBar start at login.
func (it *Item) Path() string {
	switch {
	case it.GOOS == "darwin":
		return filepath.Join(it.Dir, it.label()+".plist")
	case it.Headless:
		return filepath.Join(it.Dir, UnitName)
	}
	return filepath.Join(it.Dir, "rambar.desktop")
}

// label is the LaunchAgent's label: Label, or HeadlessLabel.
func (it *Item) label() string {
	if it.Headless {
		return HeadlessLabel
	}
	return Label
}

// kind is Status.Kind for the item.
func (it *Item) kind() string {
	if it.Headless {
		return "headless"
	}
	return "menu bar"
}

// Status reads the login item's state, asking launchd (macOS) whether the
// agent is loaded.
func (it *Item) Status(ctx context.Context) (Status, error) {
	var st Status
	var err error
	switch {
	case it.GOOS == "darwin":
		st, err = it.statusDarwin(ctx, true)
	case it.Headless:
		st, err = it.statusUnit(ctx, true)
	default:
		st, err = it.statusLinux()
	}
	st.Kind = it.kind()
	return st, err
}

// Enabled reports whether RAMBar starts at the next login. It reads only the
// file (no launchctl), so a menu can ask each time it opens.
func (it *Item) Enabled(ctx context.Context) (bool, error) {
	if it.GOOS == "darwin" {
		st, err := it.statusDarwin(ctx, false)
		return st.Enabled, err
	}
	if it.Headless {
		st, err := it.statusUnit(ctx, false)
		return st.Enabled, err
	}
	st, err := it.statusLinux()
	return st.Enabled, err
}

// Set turns the login item on or off. On: the file is written (replacing a
// stale one) and, on macOS, the agent is loaded now, which starts RAMBar if it
// was not launched by launchd. Off: the agent is booted out (unless this
// process is the agent) and the file removed. Doing what is already done is
// not an error.
func (it *Item) Set(ctx context.Context, on bool) error {
	if it.GOOS == "darwin" {
		if on {
			return it.enableDarwin(ctx)
		}
		return it.disableDarwin(ctx)
	}
	if it.Headless {
		if on {
			return it.enableUnit(ctx)
		}
		return it.disableUnit(ctx)
	}
	if on {
		return it.enableLinux()
	}
	return it.disableLinux()
}
