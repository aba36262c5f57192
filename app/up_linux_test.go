//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIUpLinux: presets made with the real binary, mounted for real as
// tmpfs by `rambar up`, skipped once mounted, remounted after an eject; a
// preset this OS cannot make fails without stopping the others.
func TestCLIUpLinux(t *testing.T) {
	c := newCLI(t)
	t.Cleanup(func() { c.run("eject", "--all", "--force") })
	for _, args := range [][]string{
		{"preset", "add", "Alpha", "16M", "--auto-mount"},
		{"preset", "add", "Beta", "8M", "--auto-mount", "--fs", "tmpfs"},
		{"preset", "add", "Manual", "8M"},
	} {
		if out, errOut, code := c.run(args...); code != 0 {
			t.Fatalf("rambar %q: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	out, errOut, code := c.run("up")
	if code != 0 || !strings.Contains(out, "Mounted Alpha at "+c.root+"/Alpha") || !strings.Contains(out, "Mounted Beta at "+c.root+"/Beta") {
		t.Fatalf("up: exit %d\n%s%s", code, out, errOut)
	}
	if m := c.mounted(); strings.Join(m, " ") != c.root+"/Alpha "+c.root+"/Beta" {
		t.Fatalf("mounted %v", m)
	}
	if err := os.WriteFile(filepath.Join(c.root, "Alpha", "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code = c.run("up")
	if code != 0 || strings.Count(out, "Skipped") != 2 || strings.Contains(out, "Mounted") {
		t.Errorf("second up: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(c.root, "Alpha", "f")); err != nil {
		t.Errorf("second up touched a mounted disk: %v", err)
	}
	if _, errOut, code := c.run("eject", "Beta"); code != 0 {
		t.Fatalf("eject: %s", errOut)
	}
	// A macOS file system is refused when the preset is made.
	if _, errOut, code := c.run("preset", "add", "Mac", "8M", "--fs", "apfs", "--auto-mount"); code != exitUnsupported || !strings.Contains(errOut, `"apfs" is not supported here (Linux)`) {
		t.Errorf("preset add with apfs on Linux: exit %d, %s", code, errOut)
	}
	// A preset larger than this machine's memory fails at up, the others are still made.
	if _, errOut, code := c.run("preset", "add", "Huge", "60T", "--auto-mount"); code != 0 {
		t.Fatalf("preset add Huge: %s", errOut)
	}
	out, errOut, code = c.run("up")
	if code != 1 || !strings.Contains(out, "Skipped Alpha") || !strings.Contains(out, "Mounted Beta") ||
		!strings.Contains(out, "Failed Huge: ") || !strings.Contains(out, "too large") || !strings.Contains(errOut, "1 of 3 auto-mount presets failed") {
		t.Errorf("up with a failing preset: exit %d\n%s%s", code, out, errOut)
	}
	if m := c.mounted(); len(m) != 2 {
		t.Errorf("mounted %v, want Alpha and Beta", m)
	}
}
