package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"rambar/i18n"
	"rambar/ramdisk"
)

// Target is a folder (or TMPDIR) that can live on a RAM disk.
type Target struct {
	Key   string `json:"key"`   // what 'rambar cache on NAME KEY' takes: go, npm, xcode…
	Label string `json:"label"` // what the menu shows: "Go build cache"
	Path  string `json:"path"`  // the folder; TMPDIRKey for a shell's TMPDIR
	// Gain says plainly what to expect.
	Gain string `json:"gain"`
}

// TMPDIRKey is the target that is not a folder: a shell's TMPDIR, pointed
// at a link that always resolves (the disk's folder, or the empty fallback).
const TMPDIRKey = "tmpdir"

// ErrRefused: a target that must not be moved (a folder the system
// needs to log in, without force), or that is not a plain folder of the
// user's. Bad input.
var ErrRefused = i18n.New("cache target refused")

const measureGain = "measure it first: rambar try -- <the command that fills it>"

// KnownTargets lists the caches RAMBar knows on this OS, for the menu's
// "Use for…" and 'rambar cache list'. getenv reads HOME, GOCACHE and XDG_CACHE_HOME.
func KnownTargets(goos string, getenv func(string) string) []Target {
	home := getenv("HOME")
	if home == "" {
		return nil
	}
	j := func(p ...string) string { return filepath.Join(append([]string{home}, p...)...) }
	xdg := getenv("XDG_CACHE_HOME")
	if xdg == "" {
		xdg = j(".cache")
	}
	gocache := getenv("GOCACHE")
	var ts []Target
	if goos == "darwin" {
		if gocache == "" {
			gocache = j("Library", "Caches", "go-build")
		}
		ts = []Target{
			{"xcode", "Xcode DerivedData", j("Library", "Developer", "Xcode", "DerivedData"), "builds write many small files: mostly less SSD wear, often little speed (most builds are CPU-bound); " + measureGain},
			{"brew", "Homebrew downloads", j("Library", "Caches", "Homebrew"), "downloads land in memory and are gone at eject: saves SSD writes, not time"},
			{"yarn", "Yarn cache", j("Library", "Caches", "Yarn"), "installs read many small files: faster when the cache is warm, refilled after every eject"},
			{"pnpm", "pnpm store", j("Library", "pnpm", "store"), "pnpm hard-links from its store, which must be on the same disk as the project: only useful for projects on the RAM disk too"},
			{"chrome", "Chrome cache", j("Library", "Caches", "Google", "Chrome"), "less SSD wear; page loads are network-bound, so little speed"},
			{"firefox", "Firefox cache", j("Library", "Caches", "Firefox"), "less SSD wear; page loads are network-bound, so little speed"},
		}
	} else {
		if gocache == "" {
			gocache = filepath.Join(xdg, "go-build")
		}
		ts = []Target{
			{"yarn", "Yarn cache", filepath.Join(xdg, "yarn"), "installs read many small files: faster when the cache is warm, refilled after every eject"},
			{"pnpm", "pnpm store", j(".local", "share", "pnpm", "store"), "pnpm hard-links from its store, which must be on the same disk as the project: only useful for projects on the RAM disk too"},
			{"chrome", "Chrome cache", filepath.Join(xdg, "google-chrome"), "less SSD wear; page loads are network-bound, so little speed"},
			{"firefox", "Firefox cache", filepath.Join(xdg, "mozilla", "firefox"), "less SSD wear; page loads are network-bound, so little speed"},
			{"brew", "Homebrew downloads", filepath.Join(xdg, "Homebrew"), "downloads land in memory and are gone at eject: saves SSD writes, not time"},
		}
	}
	ts = append(ts,
		Target{"go", "Go build cache", gocache, "go build and go test reuse it: a warm cache is fast on any disk; after an eject every package builds again; " + measureGain},
		Target{"npm", "npm cache", j(".npm"), "npm install reads and writes many small files: some speed, refilled after every eject"},
		Target{TMPDIRKey, "TMPDIR for a shell", TMPDIRKey, "temporary files of tools that honour TMPDIR; add the printed export line to your shell's profile"},
	)
	return ts
}

// XDGTargets lists the folders in the XDG cache folder (Linux), as
// targets of their own: ~/.cache/<app>.
func XDGTargets(getenv func(string) string, known []Target) []Target {
	xdg := getenv("XDG_CACHE_HOME")
	if xdg == "" && getenv("HOME") != "" {
		xdg = filepath.Join(getenv("HOME"), ".cache")
	}
	ents, err := os.ReadDir(xdg)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	for _, k := range known {
		seen[k.Path] = true
	}
	var out []Target
	for _, e := range ents {
		p := filepath.Join(xdg, e.Name())
		if !e.IsDir() || seen[p] || e.Type()&os.ModeSymlink != 0 {
			continue
		}
		out = append(out, Target{Key: p, Label: e.Name() + " cache", Path: p, Gain: "an app's cache: less SSD wear; " + measureGain})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

// ErrUnknown: a target that is neither a known cache's key nor
// written as a path. Bad input.
var ErrUnknown = errors.New("unknown cache")

// LooksLikePath reports whether a target is written as a path: /x, ./x,
// ../x, ~/x (the caller expands ~), . or .. . Anything else is taken for a
// known cache's key, so a slip ("yran") is never a new folder.
func LooksLikePath(arg string) bool {
	for _, p := range []string{"/", "./", "../", "~/"} {
		if strings.HasPrefix(arg, p) {
			return true
		}
	}
	return arg == "." || arg == ".." || arg == "~"
}

// ResolveTarget turns what the user typed (a key of a known target, or
// a path: LooksLikePath) into a target; anything else wraps ErrUnknown.
func ResolveTarget(arg string, known []Target) (Target, error) {
	for _, k := range known {
		if strings.EqualFold(arg, k.Key) {
			return k, nil
		}
	}
	if !LooksLikePath(arg) {
		return Target{}, fmt.Errorf("%w %q: give a known cache or a folder as a path (./%s, /path, ~/path)", ErrUnknown, arg, arg)
	}
	if !filepath.IsAbs(arg) {
		abs, err := filepath.Abs(arg)
		if err != nil {
			return Target{}, fmt.Errorf("%w: %s: %v", ErrRefused, arg, err)
		}
		arg = abs
	}
	p := filepath.Clean(arg)
	for _, k := range known {
		if k.Path == p {
			return k, nil
		}
	}
	return Target{Key: p, Label: filepath.Base(p), Path: p, Gain: measureGain}, nil
}

// ID is a target's name in RAMBar's folders: its base name, made safe,
// and a hash of the whole path.
func ID(path string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(filepath.Base(path)) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), ".")
	if len(name) > 40 {
		name = name[:40]
	}
	sum := sha256.Sum256([]byte(path))
	return name + "-" + hex.EncodeToString(sum[:4])
}

// loginFolders are folders the system needs to log in: moving them is
// refused unless forced.
func loginFolders(home string) []string {
	if home == "" {
		return []string{"/"}
	}
	j := func(p ...string) string { return filepath.Join(append([]string{home}, p...)...) }
	return []string{"/", home, j("Library"), j("Library", "Caches"), j("Library", "Application Support"), j("Library", "Preferences"),
		j(".cache"), j(".config"), j(".local"), j(".local", "share")}
}

// systemCacheTrees are never moved, forced or not: they are not the user's.
var systemCacheTrees = []string{"/System", "/usr", "/bin", "/sbin", "/etc", "/var", "/private", "/Library", "/Applications", "/dev", "/proc", "/sys", "/boot", "/Volumes", "/mnt", "/media"}

// checkCacheTarget refuses a target that must not be moved, with the
// reason. data is RAMBar's data folder, mounted the RAM disks.
func checkCacheTarget(path, home, data string, mountPoints []string, force bool) error {
	bad := func(why string) error { return fmt.Errorf("%w: %s: %s", ErrRefused, path, why) }
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return bad("give a clean absolute path")
	}
	for _, lf := range loginFolders(home) {
		if path == lf && !force {
			return bad("the system needs this folder to log you in; if a RAM disk held it, a login without the disk could fail (TmpDisk #47). " +
				"Pick one app's folder inside it, or use --force")
		}
	}
	for _, s := range systemCacheTrees {
		if path == s || strings.HasPrefix(path, s+"/") {
			return bad("inside the system folder " + s)
		}
	}
	if data != "" && (path == data || strings.HasPrefix(path, data+"/") || strings.HasPrefix(data, path+"/")) {
		return bad("RAMBar's own data folder is inside it, or it is inside that")
	}
	for _, mp := range mountPoints {
		if path == mp || strings.HasPrefix(path, mp+"/") || strings.HasPrefix(mp, path+"/") {
			return bad("a RAM disk is mounted there or inside it")
		}
	}
	parent, err := os.Stat(filepath.Dir(path))
	if err != nil || !parent.IsDir() {
		return bad("its parent folder does not exist")
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return bad(err.Error())
	case st.Mode()&os.ModeSymlink != 0:
		return bad("it is a symbolic link already (made by hand or another tool); make it a plain folder first")
	case !st.IsDir():
		return bad("it is a file, not a folder")
	}
	return nil
}

// ForPreset switches the preset's cache targets onto its new disk (those
// not on yet); what fails is returned as notes.
func (c *Caches) ForPreset(ctx context.Context, p ramdisk.Preset) []ramdisk.Said {
	var notes []ramdisk.Said
	known := KnownTargets(runtime.GOOS, os.Getenv)
	for _, key := range p.Caches {
		t, err := ResolveTarget(key, known)
		if err == nil {
			_, err = c.On(ctx, p.Name, t, false)
		}
		if err != nil {
			notes = append(notes, ramdisk.Sayf("cache %s: %v", key, err))
		}
	}
	return notes
}

// Choice is a known target and the disk it is on now ("" none).
type Choice struct {
	Target
	OnDisk string
}

// Choices lists the known targets except TMPDIR (a shell's setting,
// for the CLI) with the disk each is on, from RAMBar's records only: cheap
// enough for every menu build.
func (c *Caches) Choices(known []Target) []Choice {
	on := map[string]string{}
	for _, r := range c.cacheRecords() {
		on[r.Target] = r.Disk
	}
	var out []Choice
	for _, k := range known {
		if k.Path != TMPDIRKey {
			out = append(out, Choice{Target: k, OnDisk: on[k.Path]})
		}
	}
	return out
}
