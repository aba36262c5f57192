//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runHome runs the real binary with HOME set to home (never the tester's:
// 'cache on go' would move their own Go build cache).
func (c *cli) runHome(home string, args ...string) (string, string, int) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home, "HOME="+home, "XDG_CACHE_HOME=", "GOCACHE=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("rambar %q: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// TestCLICache: cache on, list, eject (the target falls back to an empty
// folder), up with a preset's caches, off (the old contents back).
func TestCLICache(t *testing.T) {
	c := newCLI(t)
	home := t.TempDir()
	gocache := filepath.Join(home, ".cache", "go-build")
	os.MkdirAll(gocache, 0o755)
	os.WriteFile(filepath.Join(gocache, "README"), []byte("old"), 0o644)
	if out, errOut, code := c.runHome(home, "create", "Build", "16M"); code != 0 {
		t.Fatalf("create: %d %s%s", code, out, errOut)
	}
	defer c.runHome(home, "eject", "--force", "Build")
	out, errOut, code := c.runHome(home, "cache", "on", "Build", "go", "tmpdir")
	if code != 0 || !strings.Contains(out, "Go build cache ("+gocache+") is on Build now") || !strings.Contains(out, "expect:") ||
		!strings.Contains(out, "export TMPDIR=") {
		t.Fatalf("cache on: %d\n%s%s", code, out, errOut)
	}
	os.WriteFile(filepath.Join(gocache, "new"), []byte("in RAM"), 0o644)
	out, _, _ = c.runHome(home, "cache", "list")
	if !strings.Contains(out, "Build") || !strings.Contains(out, gocache) || !strings.Contains(out, "on the disk") || !strings.Contains(out, "[on Build]") {
		t.Errorf("cache list:\n%s", out)
	}
	if out, _, _ := c.runHome(home, "info", "Build"); !strings.Contains(out, "Cache:") || !strings.Contains(out, gocache) {
		t.Errorf("info does not name the cache:\n%s", out)
	}
	if _, errOut, code := c.runHome(home, "eject", "Build"); code != 0 {
		t.Fatalf("eject: %s", errOut)
	}
	if ents, err := os.ReadDir(gocache); err != nil || len(ents) != 0 {
		t.Errorf("ejected: %s holds %v (%v), want an empty folder", gocache, ents, err)
	}
	out, _, _ = c.runHome(home, "cache", "list")
	if !strings.Contains(out, "empty folder (disk not mounted)") {
		t.Errorf("cache list after eject:\n%s", out)
	}
	// Refused with the reason, exit 2.
	if _, errOut, code := c.runHome(home, "cache", "on", "Build", home); code == 0 || !strings.Contains(errOut, "log you in") {
		t.Errorf("cache on HOME: %d %s", code, errOut)
	}
	if out, errOut, code := c.runHome(home, "create", "Build", "16M"); code != 0 {
		t.Fatalf("create again: %d %s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(gocache, "new")); err == nil {
		t.Errorf("a new disk holds the old disk's file: %q", b)
	}
	out, errOut, code = c.runHome(home, "cache", "off", "Build", "go", "tmpdir")
	if code != 0 || !strings.Contains(out, gocache+" is back as it was") {
		t.Fatalf("cache off: %d %s%s", code, out, errOut)
	}
	if st, err := os.Lstat(gocache); err != nil || !st.IsDir() {
		t.Fatalf("off: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(gocache, "README")); string(b) != "old" {
		t.Errorf("off: README = %q", b)
	}
	// A preset's caches are switched on when it is mounted (rambar up).
	c.runHome(home, "eject", "Build")
	if out, errOut, code := c.runHome(home, "preset", "add", "Build", "16M", "--auto-mount", "--caches", "go"); code != 0 || !strings.Contains(out, "caches "+gocache) {
		t.Fatalf("preset add: %d %s%s", code, out, errOut)
	}
	if out, errOut, code := c.runHome(home, "up"); code != 0 {
		t.Fatalf("up: %d %s%s", code, out, errOut)
	}
	if real, err := filepath.EvalSymlinks(gocache); err != nil || !strings.HasPrefix(real, filepath.Join(c.root, "Build")+"/") {
		t.Errorf("after up: %s resolves to %s (%v)", gocache, real, err)
	}
	if _, errOut, code := c.runHome(home, "cache", "off", "Build", "go"); code != 0 {
		t.Errorf("cache off: %s", errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(gocache, "README")); string(b) != "old" {
		t.Errorf("off after up: README = %q", b)
	}
}
