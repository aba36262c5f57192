//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/keeper"
)

// mountSmall mounts a tmpfs of size for the test.
func mountSmall(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("rambar-test", dir, "tmpfs", 0, "size="+size+",mode=0755"); err != nil {
		t.Fatalf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// TestCLIMirrorConflictsClaimsAndRefusals: save prints a conflict and
// --json lists it; a second disk, a preset or a missing folder or a file
// is refused with one line.
func TestCLIMirrorConflictsClaimsAndRefusals(t *testing.T) {
	c := newCLI(t)
	folder := filepath.Join(t.TempDir(), "site")
	put(t, folder, "index.html", "v1")
	put(t, folder, "about.html", "a1")
	if out, errOut, code := c.run("create", "Site", "32M", "--mirror", folder); code != 0 {
		t.Fatalf("create --mirror: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Site") })
	mp := filepath.Join(c.root, "Site")
	put(t, mp, "index.html", "the disk's")
	put(t, folder, "index.html", "the folder's")
	out, errOut, code := c.run("save", "Site")
	if code != 0 || !regexp.MustCompile(`1 conflict in .*\n  index.html: .*index\.rambar-conflict-\d{8}-\d{6}\.html`).MatchString(out) {
		t.Errorf("save with a conflict: exit %d\n%s%s", code, out, errOut)
	}
	put(t, mp, "about.html", "the disk's")
	put(t, folder, "about.html", "the folder's")
	out, errOut, code = c.run("save", "Site", "--json")
	var doc struct {
		Saved []struct {
			Folder *keeper.WriteBack `json:"folder"`
		} `json:"saved"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Saved) != 1 || doc.Saved[0].Folder == nil ||
		len(doc.Saved[0].Folder.Conflicts) != 1 || doc.Saved[0].Folder.Conflicts[0].Path != "about.html" {
		t.Errorf("save --json with a conflict: exit %d\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"create", "Other", "32M", "--mirror", folder},
		{"preset", "add", "Other", "32M", "--mirror", filepath.Join(folder, "sub")},
	} {
		if _, errOut, code := c.run(args...); code != exitRefused || !strings.Contains(errOut, "mirrored by the disk Site") {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
	// Presets: one folder, one preset; and `up` refuses a folder a mounted disk holds.
	other := filepath.Join(t.TempDir(), "other")
	put(t, other, "x", "x")
	if _, errOut, code := c.run("preset", "add", "Up1", "32M", "--mirror", other, "--auto-mount"); code != 0 {
		t.Fatalf("preset add: %s", errOut)
	}
	if _, errOut, code := c.run("preset", "add", "Up2", "32M", "--mirror", other); code != exitRefused || !strings.Contains(errOut, "mirrored by preset Up1") {
		t.Errorf("a second preset on one folder: exit %d, %s", code, errOut)
	}
	if _, errOut, code := c.run("create", "Holder", "32M", "--mirror", other); code != 0 {
		t.Fatalf("create Holder: %s", errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Holder") })
	if out, errOut, code := c.run("up"); code == 0 || !strings.Contains(out+errOut, "mirrored by the disk Holder") {
		t.Errorf("up with the folder held: exit %d\n%s%s", code, out, errOut)
	}
	c.run("eject", "Holder")
	file := filepath.Join(folder, "index.html")
	missing := filepath.Join(t.TempDir(), "new")
	for args, want := range map[string]string{file: "is a file", missing: "it does not exist; pass --create-folder", "/": "whole file system"} {
		_, errOut, code := c.run("create", "Bad", "32M", "--mirror", args)
		if code != exitUsage || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("--mirror %s: exit %d, %q, want one line saying %q", args, code, errOut, want)
		}
	}
	if len(c.mounted()) != 1 {
		t.Errorf("a refused create left a disk: %v", c.mounted())
	}
	c.run("preset", "rm", "Up1")
	if out, errOut, code := c.run("create", "New", "32M", "--mirror", missing, "--create-folder"); code != 0 {
		t.Errorf("--create-folder: exit %d\n%s%s", code, out, errOut)
	}
	c.run("eject", "New")
}

// TestCLIMirrorEjectStopsOnFailedWriteBack: the folder's file system is
// full; eject fails and says why; --force ejects and says where the state is.
func TestCLIMirrorEjectStopsOnFailedWriteBack(t *testing.T) {
	c := newCLI(t)
	folder := filepath.Join(mountSmall(t, "1m"), "site")
	put(t, folder, "a.txt", "a")
	if out, errOut, code := c.run("create", "Site", "32M", "--mirror", folder); code != 0 {
		t.Fatalf("create --mirror: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Site") })
	put(t, filepath.Join(c.root, "Site"), "big.bin", strings.Repeat("x", 3<<20))
	for i := 0; i < 2; i++ {
		out, errOut, code := c.run("eject", "Site")
		if code == 0 || !strings.Contains(errOut, "not ejected") || !strings.Contains(errOut, "no space") || len(c.mounted()) != 1 {
			t.Fatalf("eject %d onto a full folder: exit %d\n%s%s", i, code, out, errOut)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(folder, "a.txt")); string(b) != "a" {
		t.Errorf("the folder changed: a.txt = %q", b)
	}
	out, errOut, code := c.run("eject", "Site", "--force")
	if code != 0 || !strings.Contains(errOut, "last saved state is snapshot") || len(c.mounted()) != 0 {
		t.Errorf("eject --force: exit %d\n%s%s", code, out, errOut)
	}
}

// TestCLIMirrorKillDuringCreateThenEject: kill -9 while create --mirror
// loads, then a plain eject: refused (the load did not finish) or done
// (it had); the folder keeps every file; eject --no-save then ejects.
func TestCLIMirrorKillDuringCreateThenEject(t *testing.T) {
	c := newCLI(t)
	folder := filepath.Join(mountSmall(t, "128m"), "site")
	for i := 0; i < 3000; i++ {
		put(t, folder, fmt.Sprintf("d%d/f%d", i%17, i), strings.Repeat("y", i%3000))
	}
	want, err := tree.DigestOf(folder, false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, errOut, code := c.run("create", "Site", "64M", "--mirror", folder); code != 0 {
		t.Fatal(errOut)
	}
	full := time.Since(start)
	c.run("eject", "Site")
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	refused := 0
	for i := 0; i < 8 || (refused == 0 && i < 24); i++ {
		cmd := exec.Command(c.bin, "create", "Site", "64M", "--mirror", folder)
		cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Int63n(int64(full))))
		cmd.Process.Kill()
		cmd.Wait()
		_, errOut, code := c.run("eject", "Site")
		switch {
		case code == exitRefused && strings.Contains(errOut, "loading it from "+folder) && strings.Contains(errOut, "--no-save"):
			refused++
			if _, errOut, code := c.run("eject", "Site", "--no-save"); code != 0 {
				t.Fatalf("eject --no-save: %d %s", code, errOut)
			}
		case code == 0, code == exitNotFound:
		default:
			t.Fatalf("round %d: eject exit %d: %s", i, code, errOut)
		}
		got, err := tree.DigestOf(folder, false)
		if err != nil {
			t.Fatal(err)
		}
		if d := want.Diff(got, 5); len(d) > 0 {
			t.Fatalf("round %d: the folder lost %v (%d of %d files left)", i, d, got.Files(), want.Files())
		}
		if len(c.mounted()) != 0 {
			c.run("eject", "Site", "--force", "--no-save")
		}
	}
	if refused == 0 {
		t.Error("no kill landed during a load")
	}
}

func TestConflictNotice(t *testing.T) {
	wb := keeper.WriteBack{Folder: "/f"}
	for i := 0; i < 7; i++ {
		wb.Conflicts = append(wb.Conflicts, keeper.Conflict{Path: fmt.Sprintf("p%d", i), Copy: "c", What: "changed on both sides"})
	}
	title, text := conflictNotice(nil, "Site", wb)
	if title != "Site: 7 conflicts in /f" || strings.Count(text, "\n") != 6 || !strings.Contains(text, "and 2 more") {
		t.Errorf("notice %q\n%s", title, text)
	}
}
