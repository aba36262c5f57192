package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
	"rambar/tree"
)

// contentsApp is the CLI over the in-memory engine, whose disks are plain
// folders (so the keeper is told they are mounted).
type contentsApp struct {
	t        *testing.T
	a        *App
	out, err bytes.Buffer
	mem      *ramdisktest.Mem
}

func newContentsApp(t *testing.T) *contentsApp {
	root := t.TempDir()
	mem := ramdisktest.NewMem(filepath.Join(root, "vols"), ramdisk.Memory{Physical: 16 * ramdisk.GiB})
	os.MkdirAll(mem.Root, 0o700)
	c := &contentsApp{t: t, mem: mem}
	c.a = &App{Stdout: &c.out, Stderr: &c.err, Stdin: strings.NewReader(""),
		NewEngine: func() (ramdisk.Engine, error) { return mem, nil },
		NewKeeper: folderKeeper,
		Paths:     ramdisk.Paths{Settings: filepath.Join(root, "settings.plist"), Data: filepath.Join(root, "data")},
		Getenv:    func(string) string { return "" }, Now: time.Now}
	return c
}

// folderKeeper is a keeper that takes the in-memory engine's folders for
// mounted disks.
func folderKeeper(data string) *keeper.Keeper {
	k := keeper.NewKeeper(data)
	k.IsMounted = func(dir string) bool { _, err := os.Stat(dir); return err == nil }
	return k
}

// run runs the CLI and checks the exit code; it returns stdout.
func (c *contentsApp) run(code int, args ...string) string {
	c.t.Helper()
	c.out.Reset()
	c.err.Reset()
	if got := c.a.Main(args); got != code {
		c.t.Fatalf("rambar %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), got, code, c.out.String(), c.err.String())
	}
	return c.out.String()
}

func (c *contentsApp) info(name string) diskJSON {
	c.t.Helper()
	var d diskJSON
	if err := json.Unmarshal([]byte(c.run(0, "info", name, "--json")), &d); err != nil {
		c.t.Fatal(err)
	}
	if d.Contents == nil {
		c.t.Fatalf("info %s --json has no contents", name)
	}
	return d
}

func put(t *testing.T, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestKeptDiskSurvivesEjectAndCreate(t *testing.T) {
	c := newContentsApp(t)
	out := c.run(0, "create", "Work", "64M", "--keep")
	if !strings.Contains(out, "Contents are kept in") {
		t.Errorf("create --keep said %q", out)
	}
	mp := filepath.Join(c.mem.Root, "Work")
	put(t, mp, "src/a.go", "package a")
	put(t, mp, "notes.txt", "one")
	if out := c.run(0, "save", "Work"); !strings.Contains(out, "Saved Work as") {
		t.Errorf("save said %q", out)
	}
	d := c.info("Work")
	if d.Contents.Mode != ramdisk.Keep || d.Contents.LastSave == nil || d.Contents.Unsaved == nil || *d.Contents.Unsaved ||
		!strings.HasPrefix(d.Contents.Backing, c.a.Paths.Data) {
		t.Errorf("info after save: %+v", d.Contents)
	}
	first := *d.Contents.LastSnapshot
	put(t, mp, "notes.txt", "two")
	if d := c.info("Work"); !*d.Contents.Unsaved {
		t.Error("info does not see the unsaved change")
	}
	if txt := c.run(0, "info", "Work"); !strings.Contains(txt, "Unsaved changes:  yes") {
		t.Errorf("info text:\n%s", txt)
	}
	if out := c.run(0, "eject", "Work"); !strings.Contains(out, "Saved Work") || !strings.Contains(out, "Ejected Work") {
		t.Errorf("eject said %q", out)
	}
	if out := c.run(0, "create", "Work", "64M", "--keep"); !strings.Contains(out, "Restored 2 files") {
		t.Errorf("create again said %q", out)
	}
	if got := read(t, filepath.Join(mp, "notes.txt")); got != "two" {
		t.Errorf("restored notes.txt = %q", got)
	}
	var snaps struct {
		Snapshots []keeper.Snapshot `json:"snapshots"`
	}
	json.Unmarshal([]byte(c.run(0, "snapshots", "Work", "--json")), &snaps)
	if len(snaps.Snapshots) != 2 || snaps.Snapshots[0].ID != first || !snaps.Snapshots[1].Current {
		t.Fatalf("snapshots: %+v", snaps.Snapshots)
	}
	c.run(exitRefused, "restore", "Work", "--snapshot", first)
	c.run(0, "restore", "Work", "--snapshot", first, "--force")
	c.run(exitNotFound, "restore", "Work", "--snapshot", "20990101T000000Z", "--force")
	if !strings.Contains(c.err.String(), "no such snapshot") {
		t.Errorf("unknown snapshot said %q", c.err.String())
	}
	if got := read(t, filepath.Join(mp, "notes.txt")); got != "one" {
		t.Errorf("restored old snapshot: notes.txt = %q", got)
	}
	// Guards: an emptied disk is not saved over the copy.
	os.RemoveAll(filepath.Join(mp, "src"))
	os.Remove(filepath.Join(mp, "notes.txt"))
	c.run(exitRefused, "save", "Work")
	if !strings.Contains(c.err.String(), "is empty") {
		t.Errorf("refusal said %q", c.err.String())
	}
	// An empty kept disk is ejected, the refusal to save it reported and
	// the copy kept; the exit says refused (issue 14 item 7).
	c.run(exitRefused, "eject", "Work")
	if !strings.Contains(c.err.String(), "not saved before eject") {
		t.Errorf("eject of an empty kept disk said %q", c.err.String())
	}
	// The refused save changed nothing: the latest save comes back.
	c.run(0, "create", "Work", "64M", "--keep")
	if got := read(t, filepath.Join(mp, "notes.txt")); got != "two" {
		t.Errorf("after the refused save, notes.txt = %q", got)
	}
}

func TestMirrorFolderLoadsAndWritesBack(t *testing.T) {
	c := newContentsApp(t)
	folder := filepath.Join(t.TempDir(), "project")
	put(t, folder, "main.go", "package main")
	put(t, folder, "docs/readme", "hi")
	c.run(0, "create", "Proj", "64M", "--mirror", folder)
	mp := filepath.Join(c.mem.Root, "Proj")
	if got := read(t, filepath.Join(mp, "docs/readme")); got != "hi" {
		t.Fatalf("mirror not loaded: %q", got)
	}
	if d := c.info("Proj"); d.Contents.Mode != ramdisk.Mirror || d.Contents.MirrorPath != folder || *d.Contents.Unsaved {
		t.Errorf("info: %+v", d.Contents)
	}
	put(t, mp, "main.go", "package main // edited")
	os.RemoveAll(filepath.Join(mp, "docs"))
	c.run(0, "eject", "Proj")
	if got := read(t, filepath.Join(folder, "main.go")); got != "package main // edited" {
		t.Errorf("written back main.go = %q", got)
	}
	if _, err := os.Stat(filepath.Join(folder, "docs")); err == nil {
		t.Error("deleted folder still in the mirror")
	}
	if _, err := os.Stat(filepath.Join(folder, tree.MarkerName)); err == nil {
		t.Error("the marker leaked into the mirror folder")
	}
}

func TestContentsBadInput(t *testing.T) {
	c := newContentsApp(t)
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"create", "X", "64M", "--keep", "--mirror", "/tmp/x"}, exitUsage},
		{[]string{"create", "X", "64M", "--snapshots", "3"}, exitUsage},
		{[]string{"create", "X", "64M", "--keep", "--snapshots", "-1"}, exitUsage},
		{[]string{"save"}, exitUsage},
		{[]string{"save", "Nope"}, exitNotFound},
		{[]string{"snapshots", "a/b"}, exitUsage},
		{[]string{"snapshots", "Never"}, exitNotFound},
		{[]string{"restore"}, exitUsage},
		{[]string{"reclaim", "Nope"}, exitNotFound},
	}
	for _, tc := range cases {
		c.run(tc.code, tc.args...)
	}
	if ents, _ := os.ReadDir(c.mem.Root); len(ents) != 0 {
		t.Errorf("bad input made disks: %v", ents)
	}
	if _, err := os.Stat(filepath.Join(c.a.Paths.Data, "disks", "X")); err == nil {
		t.Error("bad input left a kept-disk state")
	}
	c.run(0, "create", "Plain", "64M")
	c.run(exitUsage, "save", "Plain")
	if !strings.Contains(c.err.String(), "'rambar keep NAME'") || !strings.Contains(c.err.String(), "--keep") {
		t.Errorf("save of a plain disk said %q", c.err.String())
	}
}

func TestReclaimCommand(t *testing.T) {
	c := newContentsApp(t)
	c.run(0, "create", "R", "64M", "--keep")
	mp := filepath.Join(c.mem.Root, "R")
	put(t, mp, "f", "data")
	// The in-memory engine pins nothing: reclaim is not worth it.
	c.run(exitRefused, "reclaim", "R")
	if out := c.run(0, "reclaim", "R", "--force"); !strings.Contains(out, "Reclaimed R: 1 file (") {
		t.Errorf("reclaim said %q", out)
	}
	if got := read(t, filepath.Join(mp, "f")); got != "data" {
		t.Errorf("after reclaim f = %q", got)
	}
	// The marker came back with the contents: the disk is still the kept one.
	if out := c.run(0, "save", "R"); !strings.Contains(out, "Saved R") {
		t.Errorf("save after reclaim said %q", out)
	}
}

func TestStoppedReclaimIsAnnouncedAndResumed(t *testing.T) {
	c := newContentsApp(t)
	c.run(0, "create", "Work", "64M")
	vs, _ := c.mem.List(context.Background())
	put(t, vs[0].MountPoint, "a/notes.txt", "kept")
	// What a reclaim killed after its copy out leaves: the staged copy.
	staging := filepath.Join(c.a.Paths.Data, "reclaim", "Work-20261201T080000Z")
	put(t, staging, "a/notes.txt", "kept")
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, root := range []string{vs[0].MountPoint, staging} {
		os.Chtimes(filepath.Join(root, "a/notes.txt"), when, when)
		os.Chtimes(filepath.Join(root, "a"), when, when)
		os.Chmod(root, 0o755)
		os.Chtimes(root, when, when)
	}
	if out := c.run(0, "list"); !strings.Contains(out, "warning: a reclaim of Work was stopped; its contents are safe in "+staging) {
		t.Errorf("list does not announce it:\n%s", out)
	}
	if out := c.run(0, "info", "Work"); !strings.Contains(out, "Reclaim:") || !strings.Contains(out, "--resume") {
		t.Errorf("info does not announce it:\n%s", out)
	}
	if out := c.run(0, "doctor"); !strings.Contains(out, staging+" (reclaim-staging)") {
		t.Errorf("doctor does not list it:\n%s", out)
	}
	if out := c.run(0, "reclaim", "Work", "--resume"); !strings.Contains(out, "Finished the stopped reclaim of Work") {
		t.Errorf("reclaim --resume said %q", out)
	}
	if _, err := os.Stat(staging); !os.IsNotExist(err) {
		t.Errorf("staging still there: %v", err)
	}
	if out := c.run(0, "list"); strings.Contains(out, "stopped") {
		t.Errorf("list still announces it:\n%s", out)
	}
	c.run(exitNotFound, "reclaim", "Work", "--resume")
}
