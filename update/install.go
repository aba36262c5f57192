package update

import (
	"os"
	"path/filepath"
	"strings"
)

// InstallKind is how a copy of RAMBar came to be where it is.
type InstallKind int

// The ways RAMBar is installed.
const (
	// AppBundle is RAMBar.app copied from the release's dmg: the one kind
	// that updates through the appcast.
	AppBundle InstallKind = iota
	// Homebrew is the cask: brew upgrade updates it.
	Homebrew
	// MakeInstall is `make install` on Linux, under a PREFIX.
	MakeInstall
	// Checkout is a build inside a clone of the source (bin/rambar).
	Checkout
	// Other is a program copied somewhere by hand.
	Other
)

// Install is how this copy was installed and how to update it.
type Install struct {
	Kind InstallKind
	// Where is the program (or the app bundle); Prefix (MakeInstall) or the
	// checkout's folder (Checkout).
	Where  string
	Prefix string
	Tree   string
}

// SelfUpdates is true for the one kind the appcast updates (RAMBar.app from
// the dmg); every other copy is updated as it was installed.
func (i Install) SelfUpdates() bool { return i.Kind == AppBundle }

// caskrooms are where Homebrew (Apple silicon, Intel) records an installed
// cask; a RAMBar cask there means brew put RAMBar.app in Applications.
var caskrooms = []string{"/opt/homebrew/Caskroom/rambar", "/usr/local/Caskroom/rambar"}

// DetectInstall tells how the program at exe (resolved, absolute) was
// installed on goos; exists reports whether a path exists (os.Stat in the
// program, a map in tests).
func DetectInstall(goos, exe string, exists func(string) bool) Install {
	if goos == "darwin" {
		for _, c := range caskrooms {
			if exists(c) {
				return Install{Kind: Homebrew, Where: appOf(exe)}
			}
		}
		if app := appOf(exe); app != exe {
			return Install{Kind: AppBundle, Where: app}
		}
	}
	dir := filepath.Dir(exe)
	if filepath.Base(dir) == "bin" {
		prefix := filepath.Dir(dir)
		if goos != "darwin" && exists(filepath.Join(prefix, "share", "applications", "rambar.desktop")) {
			return Install{Kind: MakeInstall, Where: exe, Prefix: prefix}
		}
		if exists(filepath.Join(prefix, "go.mod")) && exists(filepath.Join(prefix, "app", "main.go")) {
			return Install{Kind: Checkout, Where: exe, Tree: prefix}
		}
	}
	return Install{Kind: Other, Where: exe}
}

// appOf is the .app bundle holding exe (…/RAMBar.app/Contents/MacOS/rambar),
// or exe itself.
func appOf(exe string) string {
	macos := filepath.Dir(exe)
	contents := filepath.Dir(macos)
	if filepath.Base(macos) == "MacOS" && filepath.Base(contents) == "Contents" && strings.HasSuffix(filepath.Dir(contents), ".app") {
		return filepath.Dir(contents)
	}
	return exe
}

// ThisInstall is how the running program was installed.
func ThisInstall(goos string) Install {
	exe, err := os.Executable()
	if err != nil {
		return Install{Kind: Other}
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	return DetectInstall(goos, exe, func(p string) bool { _, err := os.Stat(p); return err == nil })
}

// underHome is true for a prefix the user owns (~/.local): make install
// there needs no sudo.
func underHome(p string) bool {
	h, err := os.UserHomeDir()
	return err == nil && h != "" && (p == h || strings.HasPrefix(p, h+string(filepath.Separator)))
}
