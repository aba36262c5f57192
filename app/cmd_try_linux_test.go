//go:build linux

package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestTryAndBenchWithTheLinuxEngine runs the real binary with the real
// engine: try makes a temporary tmpfs through the engine and unmounts it
// afterwards, whether the command succeeds or fails; bench with no target
// measures the mounted RAM disk and the home folder's disk.
func TestTryAndBenchWithTheLinuxEngine(t *testing.T) {
	c := newCLI(t)
	t.Chdir(t.TempDir())
	os.WriteFile("work.txt", []byte("work\n"), 0o644)
	t.Setenv("TMPDIR", t.TempDir())

	out, errOut, code := c.run("try", "--runs", "3", "--", "true")
	if code != exitOK || !strings.Contains(errOut, "Made a temporary RAM disk RAMBar-Try-") || !strings.Contains(out, "RAM disk: ") {
		t.Errorf("try -- true: exit %d\n%s\n%s", code, out, errOut)
	}
	if m := c.mounted(); len(m) != 0 {
		t.Errorf("after try: still mounted %v", m)
	}
	_, errOut, code = c.run("try", "--", "false")
	if code != exitError || !strings.Contains(errOut, "exit status 1") {
		t.Errorf("try -- false: exit %d: %s", code, errOut)
	}
	if m := c.mounted(); len(m) != 0 {
		t.Errorf("after a failed try: still mounted %v", m)
	}

	if _, errOut, code := c.run("create", "Scratch", "64M", "--fs", "tmpfs"); code != exitOK {
		t.Fatalf("create: %d %s", code, errOut)
	}
	defer c.run("eject", "Scratch", "--force")
	out, errOut, code = c.run("bench", "--quick", "--runs", "1", "--rows", "fsync", "--json")
	if code != exitOK {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	var doc struct {
		Targets []struct {
			Name string `json:"name"`
			RAM  bool   `json:"ram"`
			FS   string `json:"fs"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(doc.Targets) != 2 || doc.Targets[0].Name != "Scratch" || !doc.Targets[0].RAM || doc.Targets[0].FS != "tmpfs" || doc.Targets[1].Name != "Home disk" {
		t.Errorf("default targets: %+v", doc.Targets)
	}
}
