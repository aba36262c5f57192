//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// treeOf is every path under root with what it is: a file's bytes, a
// symlink's target, a folder; hard links share the inode number's rank.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	inodes := map[uint64]int{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			to, _ := os.Readlink(p)
			out[rel] = "symlink " + to
		case fi.IsDir():
			out[rel] = "folder " + fi.Mode().Perm().String()
		default:
			b, _ := os.ReadFile(p)
			out[rel] = string(b) + " " + fi.Mode().Perm().String()
			if st := fi.Sys().(*syscall.Stat_t); st.Nlink > 1 {
				if _, ok := inodes[st.Ino]; !ok {
					inodes[st.Ino] = len(inodes)
				}
				out[rel] += " link" + string(rune('A'+inodes[st.Ino]))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTrees(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %s is %q, want %q", what, p, got[p], w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s should not be there", what, p)
		}
	}
}

// fillPlain puts files, a folder, a symlink and a hard link on a disk.
func fillPlain(t *testing.T, mp string) {
	t.Helper()
	put(t, mp, "notes.txt", "my notes")
	put(t, mp, "src/main.go", "package main")
	os.Symlink("src/main.go", filepath.Join(mp, "link"))
	if err := os.Link(filepath.Join(mp, "notes.txt"), filepath.Join(mp, "src/notes-again.txt")); err != nil {
		t.Fatal(err)
	}
}

// TestCLIKeepAfterTheFact: `rambar keep` turns a mounted plain disk into a
// kept one without ejecting it: saved at once, saved on eject, restored
// when made again with --keep; a second keep is refused (exit 2); a name
// with saved contents of an earlier disk is refused (exit 6) and kept with
// --force, the older snapshots beside.
func TestCLIKeepAfterTheFact(t *testing.T) {
	c := newCLI(t)
	if _, errOut, code := c.run("create", "Plain", "32M"); code != 0 {
		t.Fatalf("create: %s", errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Plain") })
	mp := filepath.Join(c.root, "Plain")
	fillPlain(t, mp)
	before := treeOf(t, mp)
	out, errOut, code := c.run("keep", "Plain")
	if code != 0 || !strings.Contains(out, "Plain is kept now") || !strings.Contains(out, "Saved Plain as ") {
		t.Fatalf("keep: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code := c.run("keep", "Plain"); code != exitUsage || !strings.Contains(errOut, "kept already") {
		t.Errorf("keep of a kept disk: exit %d, %s", code, errOut)
	}
	if _, errOut, code := c.run("keep", "Plain", "--mirror", t.TempDir()); code != exitUsage || !strings.Contains(errOut, "kept already") {
		t.Errorf("keep --mirror of a kept disk: exit %d, %s", code, errOut)
	}
	put(t, mp, "later.txt", "written after keep")
	before["later.txt"] = "written after keep -rw-r--r--"
	if out, errOut, code := c.run("eject", "Plain"); code != 0 || !strings.Contains(out, "Saved") {
		t.Fatalf("eject of the kept disk: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code := c.run("create", "Plain", "32M", "--keep"); code != 0 {
		t.Fatalf("create --keep: %s", errOut)
	}
	sameTrees(t, "made again", treeOf(t, mp), before)

	// An earlier disk's saved contents under the name: refused, then --force.
	if _, errOut, code := c.run("eject", "Plain"); code != 0 {
		t.Fatalf("eject: %s", errOut)
	}
	if _, errOut, code := c.run("create", "Plain", "32M"); code != 0 {
		t.Fatalf("create: %s", errOut)
	}
	put(t, mp, "other.txt", "another disk")
	snaps := func() int {
		out, errOut, code := c.run("snapshots", "Plain", "--json")
		var doc struct {
			Snapshots []json.RawMessage `json:"snapshots"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
			t.Fatalf("snapshots: exit %d %s%s", code, out, errOut)
		}
		return len(doc.Snapshots)
	}
	n := snaps()
	if _, errOut, code := c.run("keep", "Plain"); code != exitRefused || !strings.Contains(errOut, "saved contents of an earlier disk") {
		t.Errorf("keep over saved contents: exit %d, %s", code, errOut)
	}
	if got := snaps(); got != n {
		t.Errorf("a refused keep changed the snapshots: %d, want %d", got, n)
	}
	if out, errOut, code := c.run("info", "Plain"); code != 0 || strings.Contains(out, "Contents: kept") {
		t.Errorf("a refused keep kept the disk: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := c.run("keep", "Plain", "--force"); code != 0 || !strings.Contains(out, "is kept now") {
		t.Fatalf("keep --force: exit %d\n%s%s", code, out, errOut)
	}
	if got := snaps(); got != n+1 {
		t.Errorf("keep --force: %d snapshots, want %d (the older ones stay)", got, n+1)
	}
}

// TestCLIKeepMirror: `rambar keep NAME --mirror FOLDER` writes the disk
// into an empty folder and keeps writing it back; a folder with files, a
// missing one without --create-folder and one inside the disk are refused
// with one line and change nothing.
func TestCLIKeepMirror(t *testing.T) {
	c := newCLI(t)
	if _, errOut, code := c.run("create", "Site", "32M"); code != 0 {
		t.Fatalf("create: %s", errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Site") })
	mp := filepath.Join(c.root, "Site")
	fillPlain(t, mp)
	full := t.TempDir()
	put(t, full, "theirs.txt", "the folder's own")
	missing := filepath.Join(t.TempDir(), "site")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"keep", "Site", "--mirror", full}, "not empty"},
		{[]string{"keep", "Site", "--mirror", missing}, "--create-folder"},
		{[]string{"keep", "Site", "--mirror", filepath.Join(mp, "src")}, "RAM disk"},
		{[]string{"keep", "Site", "--create-folder"}, "goes with --mirror"},
		{[]string{"keep", "Nope"}, "no such RAM disk"},
	} {
		_, errOut, code := c.run(tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, %q (want one line with %q)", tc.args, code, errOut, tc.want)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("a refused keep made %s", missing)
	}
	sameTrees(t, "the full folder after a refused keep", treeOf(t, full), map[string]string{"theirs.txt": "the folder's own -rw-r--r--"})
	if out, _, _ := c.run("info", "Site"); strings.Contains(out, "Contents: mirror") {
		t.Errorf("a refused keep left the disk mirrored:\n%s", out)
	}

	out, errOut, code := c.run("keep", "Site", "--mirror", missing, "--create-folder", "--json")
	var doc struct {
		Name     string `json:"name"`
		Contents struct {
			Mode       string `json:"mode"`
			MirrorPath string `json:"mirror_path"`
		} `json:"contents"`
		Saved struct {
			Snapshot string `json:"snapshot"`
		} `json:"saved"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Name != "Site" || doc.Contents.Mode != "mirror" ||
		doc.Contents.MirrorPath != missing || doc.Saved.Snapshot == "" {
		t.Fatalf("keep --mirror --json: exit %d\n%s%s", code, out, errOut)
	}
	sameTrees(t, "the folder after keep --mirror", treeOf(t, missing), treeOf(t, mp))
	// From now on it is a mirror: a change on the disk reaches the folder,
	// one in the folder is kept there.
	put(t, mp, "notes.txt", "edited on the disk")
	put(t, missing, "mine.txt", "made in the folder")
	if _, errOut, code := c.run("save", "Site"); code != 0 {
		t.Fatalf("save: %s", errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(missing, "notes.txt")); string(b) != "edited on the disk" {
		t.Errorf("the folder's notes.txt after a save: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(missing, "mine.txt")); string(b) != "made in the folder" {
		t.Errorf("the folder's own file after a save: %q", b)
	}
	if _, errOut, code := c.run("eject", "Site"); code != 0 {
		t.Fatalf("eject: %s", errOut)
	}
	if _, errOut, code := c.run("create", "Site", "32M", "--mirror", missing); code != 0 {
		t.Fatalf("create --mirror: %s", errOut)
	}
	sameTrees(t, "the disk made again from its folder", treeOf(t, mp), treeOf(t, missing))
}

// TestCLIKeepAnotherDataFolder: a disk another data folder made is not
// kept here without --force (exit 6, nothing recorded).
func TestCLIKeepAnotherDataFolder(t *testing.T) {
	c := newCLI(t)
	if _, errOut, code := c.run("create", "Theirs", "32M"); code != 0 {
		t.Fatalf("create: %s", errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Theirs") })
	mine := *c
	mine.home = t.TempDir()
	if _, errOut, code := mine.run("keep", "Theirs"); code != exitRefused || !strings.Contains(errOut, "--force") {
		t.Errorf("keep of another data folder's disk: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(mine.home, "disks", "Theirs")); err == nil {
		t.Errorf("a refused keep made a store")
	}
	if out, errOut, code := mine.run("keep", "Theirs", "--force"); code != 0 || !strings.Contains(out, "is kept now") {
		t.Errorf("keep --force of another data folder's disk: exit %d\n%s%s", code, out, errOut)
	}
}

// TestCLIKeepKilled: keep killed at random moments (before, during and
// after its first save) leaves the disk and its files as they were, and a
// second keep (no --force needed: nothing was saved over) or a save
// finishes it; what is saved is the disk's files.
func TestCLIKeepKilled(t *testing.T) {
	c := newCLI(t)
	for round := 0; round < 12; round++ {
		name := fmt.Sprintf("K%d", round)
		if _, errOut, code := c.run("create", name, "64M"); code != 0 {
			t.Fatalf("create: %s", errOut)
		}
		mp := filepath.Join(c.root, name)
		fillPlain(t, mp)
		for i := 0; i < 300; i++ {
			put(t, mp, fmt.Sprintf("many/%d.txt", i), strings.Repeat("x", 1000+i))
		}
		want := treeOf(t, mp)
		cmd := exec.Command(c.bin, "keep", name)
		cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(round*4) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		sameTrees(t, name+" after a killed keep", treeOf(t, mp), want)
		out, errOut, code := c.run("keep", name)
		switch {
		case code == 0:
		case code == exitUsage && strings.Contains(errOut, "kept already"):
			if _, errOut, code := c.run("save", name); code != 0 {
				t.Fatalf("round %d: save after a killed keep: exit %d %s", round, code, errOut)
			}
		default:
			t.Fatalf("round %d: keep after a killed keep: exit %d\n%s%s", round, code, out, errOut)
		}
		if _, errOut, code := c.run("eject", name); code != 0 {
			t.Fatalf("eject: %s", errOut)
		}
		if _, errOut, code := c.run("create", name, "64M", "--keep"); code != 0 {
			t.Fatalf("create --keep: %s", errOut)
		}
		sameTrees(t, name+" made again", treeOf(t, mp), want)
		c.run("eject", name)
	}
}
