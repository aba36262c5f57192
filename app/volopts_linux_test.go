//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCLIVolumeOptions: create --noexec --folders --mount-point --icon
// --spotlight on real tmpfs, through the real binary.
func TestCLIVolumeOptions(t *testing.T) {
	c := newCLI(t)
	mp := filepath.Join(t.TempDir(), "My Downloads")
	t.Cleanup(func() {
		if syscall.Unmount(mp, syscall.MNT_DETACH) == nil {
			t.Errorf("left mounted: %s", mp)
		}
	})
	icon := filepath.Join(t.TempDir(), "x.icns")
	os.WriteFile(icon, []byte("icns\x00\x00\x00\x08"), 0o600)
	out, errOut, code := c.run("create", "Downloads", "16M", "--noexec", "--folders", "incoming,unpacked/zips",
		"--mount-point", mp, "--icon", icon, "--spotlight")
	if code != 0 || !strings.Contains(out, "Created Downloads at "+mp) || !strings.Contains(out, "mounted noexec, nosuid, nodev") ||
		!strings.Contains(out, "--spotlight has no effect on Linux") || !strings.Contains(out, "only macOS's Finder shows it") {
		t.Fatalf("create: exit %d\n%s%s", code, out, errOut)
	}
	defer c.run("eject", "--force", "Downloads")
	for _, f := range []string{"incoming", "unpacked/zips"} {
		if st, err := os.Stat(filepath.Join(mp, f)); err != nil || !st.IsDir() {
			t.Errorf("folder %s: %v", f, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(mp, ".VolumeIcon.icns")); string(b) != "icns\x00\x00\x00\x08" {
		t.Errorf(".VolumeIcon.icns = %q", b)
	}
	script := filepath.Join(mp, "incoming", "run.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho ran\n"), 0o755)
	if err := exec.Command(script).Run(); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("a script on the noexec disk: %v, want permission denied", err)
	}
	out, _, code = c.run("info", "Downloads")
	if code != 0 || !strings.Contains(out, "noexec, folders incoming, unpacked/zips, at "+mp+", icon x.icns, Spotlight on") {
		t.Errorf("info does not show the options:\n%s", out)
	}
	out, _, code = c.run("list")
	if code != 0 || !strings.Contains(out, "Downloads") {
		t.Errorf("list does not show the disk at its own folder: %s", out)
	}
	if _, errOut, code := c.run("eject", "Downloads"); code != 0 {
		t.Errorf("eject: %d %s", code, errOut)
	}
	if st, err := os.Stat(mp); err != nil || !st.IsDir() {
		t.Errorf("the chosen folder went: %v", err)
	}
}

// TestCLIVolumeOptionRefusals: bad extras are one-line usage errors (exit 2)
// and nothing is mounted.
func TestCLIVolumeOptionRefusals(t *testing.T) {
	c := newCLI(t)
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "x"), nil, 0o600)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--folders", "../up"}, "--folders"},
		{[]string{"--folders", "/abs"}, "relative"},
		{[]string{"--icon", "/nonexistent/x.png"}, "not a readable file"},
		{[]string{"--icon", full}, ".icns or .png"},
		{[]string{"--mount-point", "/usr/x"}, "inside the system folder /usr"},
		{[]string{"--mount-point", full}, "not empty"},
		{[]string{"--mount-point", "/"}, "a system folder"},
	} {
		_, errOut, code := c.run(append([]string{"create", "Bad", "16M"}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("create %q: exit %d, %q; want exit 2 saying %q", tt.args, code, errOut, tt.want)
		}
	}
	if m := c.mounted(); len(m) != 0 {
		t.Errorf("mounted after refusals: %v", m)
	}
}

// TestCLIPresetVolumeOptions: preset add and edit keep the extras, and
// preset mount uses them.
func TestCLIPresetVolumeOptions(t *testing.T) {
	c := newCLI(t)
	out, errOut, code := c.run("preset", "add", "Inbox", "16M", "--noexec", "--folders", "a,b/c")
	if code != 0 || !strings.Contains(out, "noexec, folders a, b/c") {
		t.Fatalf("preset add: %d %s%s", code, out, errOut)
	}
	out, errOut, code = c.run("preset", "edit", "Inbox", "--noexec=false", "--folders", "d")
	if code != 0 || strings.Contains(out, "noexec") || !strings.Contains(out, "folders d") {
		t.Fatalf("preset edit: %d %s%s", code, out, errOut)
	}
	if out, errOut, code = c.run("preset", "mount", "Inbox"); code != 0 {
		t.Fatalf("preset mount: %d %s%s", code, out, errOut)
	}
	defer c.run("eject", "--force", "Inbox")
	if st, err := os.Stat(filepath.Join(c.root, "Inbox", "d")); err != nil || !st.IsDir() {
		t.Errorf("preset's folder: %v", err)
	}
}
