//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCLIHintsFollowable: every hint names a command that takes what it
// says, and refusals come before the plan and point the right way.
func TestCLIHintsFollowable(t *testing.T) {
	c := newCLI(t)
	home := t.TempDir()
	noPlan := func(what, out string) {
		t.Helper()
		if strings.Contains(out, "Creating ") {
			t.Errorf("%s: the plan was printed before the refusal:\n%s", what, out)
		}
	}

	// --mirror at the mount root would hold the disk itself: refused before
	// the plan, and nothing is mounted.
	os.MkdirAll(c.root, 0o755)
	out, errOut, code := c.run("create", "Self", "16M", "--mirror", c.root)
	if code != exitUsage || !strings.Contains(errOut, "holds the RAM disk's mount point") {
		t.Errorf("--mirror at the mount root: exit %d\n%s%s", code, out, errOut)
	}
	noPlan("--mirror at the mount root", out)
	if m := c.mounted(); len(m) != 0 {
		t.Errorf("a refused disk was made: %v", m)
	}

	// A missing folder: create says --create-folder, which it takes.
	gone := filepath.Join(t.TempDir(), "gone")
	if out, errOut, code := c.run("create", "Gone", "16M", "--mirror", gone); code != exitUsage || !strings.Contains(errOut, "pass --create-folder to make it") {
		t.Errorf("create --mirror MISSING: exit %d\n%s%s", code, out, errOut)
	}

	// Another user's folder at the mount point: said so, not "already
	// mounted", and before the plan.
	other := filepath.Join(c.root, "Theirs")
	os.MkdirAll(other, 0o700)
	os.Chown(other, 65534, 65534)
	out, errOut, code = c.run("create", "Theirs", "16M")
	if code != exitExists || !strings.Contains(errOut, "belongs to another user (uid 65534)") || strings.Contains(errOut, "already mounted") {
		t.Errorf("create over another user's mount point: exit %d\n%s%s", code, out, errOut)
	}
	noPlan("another user's mount point", out)
	os.Remove(other)

	// A mirror disk whose folder is gone: eject says what eject can do.
	site := filepath.Join(home, "site")
	os.MkdirAll(site, 0o755)
	os.WriteFile(filepath.Join(site, "a"), []byte("a"), 0o644)
	if out, errOut, code := c.run("create", "Site", "16M", "--mirror", site); code != 0 {
		t.Fatalf("create Site: %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Site") })
	os.WriteFile(filepath.Join(c.root, "Site", "b"), []byte("b"), 0o644)
	if err := os.RemoveAll(site); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = c.run("eject", "Site")
	if code == 0 || !strings.Contains(errOut, "make the folder again") || !strings.Contains(errOut, "eject with --force") || strings.Contains(errOut, "--create-folder") {
		t.Errorf("eject of a mirror disk whose folder is gone: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = c.run("save", "Site")
	if code == 0 || !strings.Contains(errOut, "make the folder again") || strings.Contains(errOut, "--create-folder") {
		t.Errorf("save of a mirror disk whose folder is gone: exit %d\n%s%s", code, out, errOut)
	}
	os.MkdirAll(site, 0o755)
	if out, errOut, code := c.run("eject", "Site"); code != 0 {
		t.Errorf("eject after the folder was made again: exit %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(site, "b")); err != nil || string(b) != "b" {
		t.Errorf("the disk was not written back into the folder made again: %q, %v", b, err)
	}

	// A kept disk emptied: save names its --force; eject, after which no
	// save can be forced, does not.
	if out, errOut, code := c.run("create", "Kept", "16M", "--keep"); code != 0 {
		t.Fatalf("create Kept: %d\n%s%s", code, out, errOut)
	}
	os.WriteFile(filepath.Join(c.root, "Kept", "f"), []byte("f"), 0o644)
	if out, errOut, code := c.run("save", "Kept"); code != 0 {
		t.Fatalf("save Kept: %d\n%s%s", code, out, errOut)
	}
	os.Remove(filepath.Join(c.root, "Kept", "f"))
	if out, errOut, code := c.run("save", "Kept"); code != exitRefused || !strings.Contains(errOut, "'rambar save Kept --force' saves it anyway") {
		t.Errorf("save of an emptied kept disk: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := c.run("eject", "Kept"); code != exitRefused || strings.Contains(errOut, "--force") || !strings.Contains(out, "Ejected Kept") {
		t.Errorf("eject of an emptied kept disk: exit %d\n%s%s", code, out, errOut)
	}

	// A preset whose folder is gone: up says how the preset makes it.
	docs := filepath.Join(home, "docs")
	os.MkdirAll(docs, 0o755)
	if out, errOut, code := c.run("preset", "add", "Docs", "16M", "--mirror", docs, "--auto-mount"); code != 0 {
		t.Fatalf("preset add: %d\n%s%s", code, out, errOut)
	}
	os.Remove(docs)
	out, errOut, code = c.run("up")
	if code == 0 || !strings.Contains(out, "rambar preset edit Docs --mirror "+docs+" --create-folder") || strings.Contains(out, "pass --create-folder") {
		t.Errorf("up with a preset whose folder is gone: exit %d\n%s%s", code, out, errOut)
	}
}

// TestCLICacheOffAfterWriteBack: a cache target's link moved aside as a
// mirror write-back's conflict copy is taken back by cache off, which says
// so (not "changed by hand") and keeps what the write-back put there.
func TestCLICacheOffAfterWriteBack(t *testing.T) {
	c := newCLI(t)
	home := t.TempDir()
	if out, errOut, code := c.runHome(home, "create", "Build", "16M"); code != 0 {
		t.Fatalf("create: %d %s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.runHome(home, "eject", "--force", "Build") })
	target := filepath.Join(home, "deps")
	if out, errOut, code := c.runHome(home, "cache", "on", "Build", target); code != 0 {
		t.Fatalf("cache on: %d %s%s", code, out, errOut)
	}
	copyPath := filepath.Join(home, "deps.rambar-conflict-20261201-101500")
	if err := os.Rename(target, copyPath); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(target, 0o755) // the disk's version under the name
	out, errOut, code := c.runHome(home, "cache", "off", "Build", target)
	if code != 0 || !strings.Contains(out+errOut, "write-back") || strings.Contains(out+errOut, "by hand") {
		t.Errorf("cache off after a write-back moved the link: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Lstat(copyPath); err == nil {
		t.Errorf("the set-aside link %s is still there after cache off", copyPath)
	}
	if kept, _ := filepath.Glob(target + ".rambar-cache-copy-*"); len(kept) != 1 {
		t.Errorf("what the write-back put at %s is not kept beside it: %v", target, kept)
	}
}

// TestCLIReclaimKeepsRootTimes: a reclaimed disk's root folder keeps its
// access and modification times.
func TestCLIReclaimKeepsRootTimes(t *testing.T) {
	c := newCLI(t)
	if out, errOut, code := c.run("create", "Old", "16M"); code != 0 {
		t.Fatalf("create: %d %s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "Old") })
	root := filepath.Join(c.root, "Old")
	os.WriteFile(filepath.Join(root, "f"), []byte("kept"), 0o644)
	at, mt := time.Date(2020, 1, 2, 3, 4, 5, 600, time.UTC), time.Date(2021, 6, 7, 8, 9, 10, 11, time.UTC)
	if err := os.Chtimes(root, at, mt); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := c.run("reclaim", "Old", "--force"); code != 0 {
		t.Fatalf("reclaim: %d %s%s", code, out, errOut)
	}
	st, err := os.Stat(root)
	if err != nil {
		t.Fatal(err)
	}
	if !st.ModTime().Equal(mt) {
		t.Errorf("the root's modification time is %v after reclaim, want %v", st.ModTime(), mt)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "f")); string(b) != "kept" {
		t.Errorf("f = %q after reclaim", b)
	}
}
