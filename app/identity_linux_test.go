//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runAt runs the real binary with another data folder (RAMBAR_HOME), as
// root's RAMBar under sudo (HOME=/root) or a second RAMBAR_HOME would.
func (c *cli) runAt(home string, args ...string) (string, string, int) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+home)
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

// TestCLIAnotherDataFolder: a kept disk is refused by a RAMBar with another
// data folder, in one line naming the owner (exit 6); its eject --all lists
// it and leaves it; with --force it goes. The owner's eject saves it.
func TestCLIAnotherDataFolder(t *testing.T) {
	c := newCLI(t)
	rootHome := t.TempDir()
	if out, errOut, code := c.run("create", "Work", "16M", "--keep"); code != 0 {
		t.Fatalf("create: %d %s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "Work") })
	os.WriteFile(filepath.Join(c.root, "Work", "draft"), []byte("unsaved"), 0o600)
	out, errOut, code := c.runAt(rootHome, "eject", "Work")
	if code != 6 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "another RAMBar's disk") ||
		!strings.Contains(errOut, filepath.Join(c.home, "data")) || !strings.Contains(errOut, "--force") {
		t.Errorf("eject from another data folder: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = c.runAt(rootHome, "eject", "--all")
	if code != 0 || !strings.Contains(out, "Left alone: Work is another RAMBar's disk") || strings.Contains(out, "Ejected") {
		t.Errorf("eject --all from another data folder: exit %d\n%s%s", code, out, errOut)
	}
	if len(c.mounted()) != 1 {
		t.Fatalf("the disk went: %v", c.mounted())
	}
	out, errOut, code = c.run("eject", "Work")
	if code != 0 || !strings.Contains(out, "Saved Work as") || !strings.Contains(out, "Ejected Work") {
		t.Errorf("the owner's eject: exit %d\n%s%s", code, out, errOut)
	}
	c.run("create", "Work", "16M", "--keep")
	if got, _ := os.ReadFile(filepath.Join(c.root, "Work", "draft")); string(got) != "unsaved" {
		t.Errorf("restored %q", got)
	}
	if out, errOut, code = c.runAt(rootHome, "eject", "Work", "--force"); code != 0 || !strings.Contains(out, "Ejected Work") {
		t.Errorf("eject --force from another data folder: exit %d\n%s%s", code, out, errOut)
	}
}

// TestCLIKeptAfterTidyUp: rm -rf at a kept disk's root and a git clean -fdx
// there leave it kept: the next eject saves; the disk's tree never held a
// RAMBar file.
func TestCLIKeptAfterTidyUp(t *testing.T) {
	c := newCLI(t)
	c.run("create", "Work", "16M", "--keep")
	t.Cleanup(func() { c.run("eject", "--force", "Work") })
	mp := filepath.Join(c.root, "Work")
	if ents, _ := os.ReadDir(mp); len(ents) != 0 {
		t.Errorf("a new kept disk holds %v", ents)
	}
	git := exec.Command("git", "init", "-q", mp)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(mp, "a.o"), []byte("x"), 0o600)
	clean := exec.Command("git", "-C", mp, "clean", "-fdxq")
	if out, err := clean.CombinedOutput(); err != nil {
		t.Fatalf("git clean: %v %s", err, out)
	}
	os.RemoveAll(filepath.Join(mp, ".git"))
	os.WriteFile(filepath.Join(mp, "kept.txt"), []byte("after the tidy-up"), 0o600)
	out, errOut, code := c.run("eject", "Work")
	if code != 0 || !strings.Contains(out, "Saved Work as") {
		t.Fatalf("eject after the tidy-up: exit %d\n%s%s", code, out, errOut)
	}
	c.run("create", "Work", "16M", "--keep")
	if got, _ := os.ReadFile(filepath.Join(mp, "kept.txt")); string(got) != "after the tidy-up" {
		t.Errorf("restored %q", got)
	}
}

// TestCLIStoredSettingsAndKeptWork: a plain re-create keeps --snapshots 8
// --save-every 30s (the plan says so, info too); fewer snapshots are
// warned about in the plan; mirroring over kept work is refused in one
// line with the choices, --set-aside-kept goes on; a try-shaped name is
// refused.
func TestCLIStoredSettingsAndKeptWork(t *testing.T) {
	c := newCLI(t)
	t.Cleanup(func() { c.run("eject", "--force", "Work") })
	if _, errOut, code := c.run("create", "Work", "16M", "--keep", "--snapshots", "8", "--save-every", "30s"); code != 0 {
		t.Fatalf("create: %s", errOut)
	}
	for i := 0; i < 3; i++ {
		os.WriteFile(filepath.Join(c.root, "Work", "f"), []byte(strings.Repeat("x", i+1)), 0o600)
		c.run("save", "Work")
	}
	c.run("eject", "Work")
	out, errOut, code := c.run("create", "Work", "16M", "--keep")
	if code != 0 || !strings.Contains(out, "keeps its settings from before: 8 snapshots, autosave every 30 s") {
		t.Errorf("plain re-create: exit %d\n%s%s", code, out, errOut)
	}
	out, _, _ = c.run("info", "Work", "--json")
	var doc struct {
		Contents struct {
			Snapshots int     `json:"snapshots_kept"`
			SaveEvery float64 `json:"save_every_seconds"`
		} `json:"contents"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Contents.Snapshots != 8 || doc.Contents.SaveEvery != 30 {
		t.Errorf("info --json after a plain re-create: %v\n%s", err, out)
	}
	c.run("eject", "Work")
	out, _, code = c.run("create", "Work", "16M", "--keep", "--snapshots", "2")
	if code != 0 || !strings.Contains(out, "Warning: keeps 2 snapshots instead of 8: its next save deletes the 2 oldest snapshots") {
		t.Errorf("fewer snapshots: exit %d\n%s", code, out)
	}
	c.run("eject", "Work")
	folder := t.TempDir()
	out, errOut, code = c.run("create", "Work", "16M", "--mirror", folder)
	if code != 6 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "--set-aside-kept") ||
		!strings.Contains(errOut, "rambar create Work SIZE --keep") || !strings.Contains(errOut, "rambar forget Work") {
		t.Errorf("mirror over kept work: exit %d\n%s%s", code, out, errOut)
	}
	if len(c.mounted()) != 0 {
		t.Errorf("a refused create made a disk: %v", c.mounted())
	}
	if _, errOut, code = c.run("create", "Work", "16M", "--mirror", folder, "--set-aside-kept"); code != 0 {
		t.Errorf("--set-aside-kept: exit %d %s", code, errOut)
	}
	out, _, _ = c.run("snapshots", "Work", "--json")
	if !strings.Contains(out, `"set_aside": true`) {
		t.Errorf("snapshots --json does not show the set-aside work:\n%s", out)
	}
	if _, errOut, code = c.run("create", "RAMBar Try 77", "16M"); code != 2 || !strings.Contains(errOut, "reserved") {
		t.Errorf("a try-shaped name: exit %d %s", code, errOut)
	}
}

// TestCLIMirrorOfAGitClone: a Mirror disk of a git clone shows nothing in
// git status, on the disk and in the folder, after the load and after a
// write-back of a commit made on the disk.
func TestCLIMirrorOfAGitClone(t *testing.T) {
	c := newCLI(t)
	folder := t.TempDir()
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	git := func(dir string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return string(out)
	}
	git(folder, "init", "-q")
	os.WriteFile(filepath.Join(folder, "README"), []byte("hello\n"), 0o644)
	git(folder, "add", "-A")
	git(folder, "commit", "-qm", "first")
	if _, errOut, code := c.run("create", "Site", "16M", "--mirror", folder); code != 0 {
		t.Fatalf("create: %s", errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "Site") })
	mp := filepath.Join(c.root, "Site")
	if st := git(mp, "status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("git status on the disk after the load: %q", st)
	}
	os.WriteFile(filepath.Join(mp, "README"), []byte("hello again\n"), 0o644)
	git(mp, "commit", "-qam", "on the disk")
	if _, errOut, code := c.run("save", "Site"); code != 0 {
		t.Fatalf("save: %s", errOut)
	}
	for _, dir := range []string{mp, folder} {
		if st := git(dir, "status", "--porcelain", "--ignored"); st != "" {
			t.Errorf("git status in %s after the write-back: %q", dir, st)
		}
	}
}
