//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"rambar/settingsfile"
	"strings"
	"testing"

	"rambar/ramdisk"
)

// TestCLITypedPaths: what a user types for a cache target or a path flag.
// A slip of a cache's key ("yran") is refused with the known keys and the
// nearest, and makes nothing in the current folder; a path is one only when
// written as one (./x, /x, ~/x). A cache target that did not exist is not
// said to keep old contents in an empty path. --mirror=~/x, --mount-point=~/x
// and --icon=~/x (a shell leaves ~ after = alone) mean the home folder, in
// create and in preset add and edit; ~user is refused; `up` refuses a preset
// an older RAMBar saved with a folder named "~" that does not exist.
func TestCLITypedPaths(t *testing.T) {
	c := newCLI(t)
	home := t.TempDir()
	cwd := t.TempDir()
	run := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(c.bin, args...)
		cmd.Dir = cwd
		cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home, "HOME="+home, "XDG_CACHE_HOME=", "GOCACHE=", "SUDO_USER=")
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return out.String(), errb.String(), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), 0
	}
	if out, errOut, code := run("create", "Build", "16M"); code != 0 {
		t.Fatalf("create: %d %s%s", code, out, errOut)
	}
	t.Cleanup(func() { run("eject", "--force", "Build") })

	out, errOut, code := run("cache", "on", "Build", "yran")
	if code != exitUsage || !strings.Contains(errOut, "did you mean yarn?") || !strings.Contains(errOut, "known: yarn, pnpm") || !strings.Contains(errOut, "./yran") {
		t.Errorf("cache on Build yran: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Lstat(filepath.Join(cwd, "yran")); err == nil {
		t.Error("a mistyped key made a folder in the current directory")
	}
	out, errOut, code = run("cache", "on", "Build", "./fresh", "~/later")
	if code != 0 || strings.Contains(out, "wait in  for") || strings.Count(out, "did not exist before") != 2 {
		t.Errorf("cache on new folders: exit %d\n%s%s", code, out, errOut)
	}
	for _, p := range []string{filepath.Join(cwd, "fresh"), filepath.Join(home, "later")} {
		if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is not the cache's link: %v", p, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(cwd, "~")); err == nil {
		t.Error("~/later made a folder named ~")
	}
	if out, errOut, code := run("cache", "off", "Build", "./fresh", "~/later"); code != 0 {
		t.Errorf("cache off: exit %d\n%s%s", code, out, errOut)
	}

	site := filepath.Join(home, "site")
	os.MkdirAll(site, 0o755)
	os.WriteFile(filepath.Join(site, "index.html"), []byte("hi"), 0o644)
	os.WriteFile(filepath.Join(home, "icon.icns"), []byte("icns\x00\x00\x00\x08"), 0o644)
	out, errOut, code = run("create", "Site", "16M", "--mirror=~/site", "--mount-point=~/mnt-site", "--icon=~/icon.icns")
	if code != 0 || !strings.Contains(out, "Loaded "+site) || !strings.Contains(out, "at "+filepath.Join(home, "mnt-site")) {
		t.Fatalf("create --mirror=~/site: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { run("eject", "--force", "Site") })
	if _, err := os.Lstat(filepath.Join(cwd, "~")); err == nil {
		t.Error("--mirror=~/site made a folder named ~")
	}
	if out, errOut, code := run("create", "Other", "16M", "--mirror=~nobody/site"); code != exitUsage || !strings.Contains(errOut, "~user is not expanded") {
		t.Errorf("--mirror=~nobody/site: exit %d\n%s%s", code, out, errOut)
	}
	os.MkdirAll(filepath.Join(home, "docs"), 0o755)
	if out, errOut, code := run("preset", "add", "Docs", "16M", "--mirror=~/docs"); code != 0 || !strings.Contains(out, filepath.Join(home, "docs")) {
		t.Errorf("preset add --mirror=~/docs: exit %d\n%s%s", code, out, errOut)
	}
	os.MkdirAll(filepath.Join(home, "docs2"), 0o755)
	if out, errOut, code := run("preset", "edit", "Docs", "--mirror=~/docs2"); code != 0 || !strings.Contains(out, filepath.Join(home, "docs2")) {
		t.Errorf("preset edit --mirror=~/docs2: exit %d\n%s%s", code, out, errOut)
	}

	// A preset saved by an older RAMBar from --mirror=~/old, in cwd.
	st := settingsfile.Store{Path: filepath.Join(c.home, "settings.plist")}
	if _, err := st.Update(16*ramdisk.GiB, func(s *ramdisk.Settings) error {
		return s.AddPreset(ramdisk.Preset{Name: "Old", Size: "16M", AutoMount: true, Contents: ramdisk.Mirror, MirrorPath: filepath.Join(cwd, "~", "old")}, 16*ramdisk.GiB)
	}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run("up")
	if code == 0 || !strings.Contains(out, `folder named "~"`) || !strings.Contains(out, "rambar preset edit Old --mirror ~/old") {
		t.Errorf("up with an old ~ preset: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Lstat(filepath.Join(cwd, "~")); err == nil {
		t.Error("up made a folder named ~")
	}
}
