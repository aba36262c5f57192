//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIForgetTakesOptionFiles: forget removes a name's saved contents and
// the record of its extras; a disk of that name mounted now (made without
// keeping) keeps its own.
func TestCLIForgetTakesOptionFiles(t *testing.T) {
	c := newCLI(t)
	options := filepath.Join(c.home, "data", "options")
	records := func() []string {
		ents, _ := os.ReadDir(options)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	if out, errOut, code := c.run("create", "Work", "16M", "--keep", "--folders", "src,build"); code != 0 {
		t.Fatalf("create: %d %s%s", code, out, errOut)
	}
	os.WriteFile(filepath.Join(c.root, "Work", "src", "a.go"), []byte("package a"), 0o644)
	if out, errOut, code := c.run("eject", "Work"); code != 0 {
		t.Fatalf("eject: %d %s%s", code, out, errOut)
	}
	if r := records(); len(r) != 1 {
		t.Fatalf("options records after eject: %v, want Work's", r)
	}
	if out, errOut, code := c.run("forget", "Work", "--yes"); code != 0 || !strings.Contains(out, "Forgot the saved contents of Work") {
		t.Fatalf("forget: %d %s%s", code, out, errOut)
	}
	if r := records(); len(r) != 0 {
		t.Errorf("options records after forget: %v, want none", r)
	}

	// Saved contents of Plain, and a Plain made without --keep mounted now.
	c.run("create", "Plain", "16M", "--keep")
	os.WriteFile(filepath.Join(c.root, "Plain", "f"), []byte("f"), 0o644)
	c.run("eject", "Plain")
	if out, errOut, code := c.run("create", "Plain", "16M", "--noexec"); code != 0 {
		t.Fatalf("create Plain: %d %s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "Plain") })
	if out, errOut, code := c.run("forget", "Plain", "--yes"); code != 0 {
		t.Fatalf("forget Plain: %d %s%s", code, out, errOut)
	}
	if r := records(); len(r) != 1 {
		t.Errorf("the mounted Plain's options record went with forget: %v", r)
	}
	if out, _, _ := c.run("info", "Plain"); !strings.Contains(out, "Options:") || !strings.Contains(out, "noexec") {
		t.Errorf("info of the mounted Plain lost its options:\n%s", out)
	}
}

// TestCLIIconRefusedFirst: an icon that cannot be read as an image is an
// error before anything is made: no plan, no disk, no preset.
func TestCLIIconRefusedFirst(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.png")
	os.WriteFile(broken, []byte("\x89PNG\r\n\x1a\nnot really"), 0o644)
	fake := filepath.Join(dir, "fake.icns")
	os.WriteFile(fake, []byte("GIF89a"), 0o644)
	folder := filepath.Join(dir, "folder.png")
	os.Mkdir(folder, 0o755)
	for _, icon := range []struct{ path, says string }{
		{broken, "png:"}, {fake, "not an .icns file"}, {folder, "not a readable file"}, {filepath.Join(dir, "none.png"), "not a readable file"},
	} {
		out, errOut, code := c.run("create", "Iconic", "16M", "--icon", icon.path)
		if code != exitUsage || !strings.Contains(errOut, icon.says) || strings.Contains(out, "Creating") {
			t.Errorf("create --icon %s: exit %d\n%s%s", icon.path, code, out, errOut)
		}
		if m := c.mounted(); len(m) != 0 {
			t.Errorf("a disk was made with a bad icon: %v", m)
		}
		if out, errOut, code := c.run("preset", "add", "Iconic", "16M", "--icon", icon.path); code != exitUsage || !strings.Contains(errOut, icon.says) {
			t.Errorf("preset add --icon %s: exit %d\n%s%s", icon.path, code, out, errOut)
		}
	}
	if out, _, _ := c.run("preset", "list"); strings.Contains(out, "Iconic") {
		t.Errorf("a preset was added with a bad icon:\n%s", out)
	}
}
