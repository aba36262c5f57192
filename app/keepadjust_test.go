package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestKeepAdjustsAKeptDisk: `rambar keep NAME --save-every …|--snapshots N`
// on a disk kept or mirrored already changes how it is saved from now on,
// saves nothing, says what it was and is, warns of the snapshots a smaller
// count deletes, and names a preset of the same name that says otherwise;
// keep with neither flag on a kept disk says which flags change it.
func TestKeepAdjustsAKeptDisk(t *testing.T) {
	c := newContentsApp(t)
	c.run(0, "create", "Work", "1G", "--keep")
	for i := range 3 {
		put(t, filepath.Join(c.mem.Root, "Work"), "notes.txt", strings.Repeat("x", i+1))
		c.run(0, "save", "Work")
	}
	before := c.info("Work").Contents.LastSnapshot
	out := c.run(0, "keep", "Work", "--save-every", "auto")
	if !strings.Contains(out, "Work is kept; from now on saved continuously") || !strings.Contains(out, "was: saved at eject") {
		t.Errorf("keep --save-every auto on a kept disk:\n%s", out)
	}
	d := c.info("Work").Contents
	if !d.SaveContinuously || d.SaveEvery != 0 || d.Snapshots != 5 {
		t.Errorf("after --save-every auto: %+v", d)
	}
	if *d.LastSnapshot != *before {
		t.Errorf("keep adjusting saved: last snapshot %s, was %s", *d.LastSnapshot, *before)
	}
	c.run(0, "keep", "Work", "--save-every", "10m", "--snapshots", "2")
	if !strings.Contains(c.err.String(), "its next save deletes the 2 oldest snapshots") {
		t.Errorf("a smaller count warns of nothing:\n%s", c.err.String())
	}
	if d := c.info("Work").Contents; d.SaveContinuously || d.SaveEvery != 600 || d.Snapshots != 2 {
		t.Errorf("after --save-every 10m --snapshots 2: %+v", d)
	}
	if out := c.run(0, "keep", "Work", "--save-every", "10m", "--snapshots", "2"); !strings.Contains(out, "nothing changed") {
		t.Errorf("the same settings again:\n%s", out)
	}
	c.run(2, "keep", "Work")
	if !strings.Contains(c.err.String(), "--save-every or --snapshots change how it is saved") {
		t.Errorf("keep on a kept disk with no flag:\n%s", c.err.String())
	}
	c.run(0, "preset", "add", "Work", "1G", "--keep", "--save-every", "1h")
	c.run(0, "keep", "Work", "--save-every", "0")
	if !strings.Contains(c.err.String(), "the preset Work sets its own at its next mount (saved every 1 h") {
		t.Errorf("a preset that says otherwise is not named:\n%s", c.err.String())
	}
	c.run(0, "create", "Plain", "1G")
	if out := c.run(0, "keep", "Plain", "--save-every", "auto"); !strings.Contains(out, "Plain is kept now") {
		t.Errorf("keep --save-every on a plain disk should keep it:\n%s", out)
	}
	if d := c.info("Plain").Contents; !d.SaveContinuously {
		t.Errorf("Plain kept with --save-every auto: %+v", d)
	}
}

// TestFreshKeptDiskIsNotUnsaved: a kept disk never saved and still empty
// has nothing unsaved; its first file makes it unsaved.
func TestFreshKeptDiskIsNotUnsaved(t *testing.T) {
	c := newContentsApp(t)
	c.run(0, "create", "Work", "1G", "--keep")
	if u := c.info("Work").Contents.Unsaved; u == nil || *u {
		t.Errorf("a fresh empty kept disk: unsaved_changes %v, want false", u)
	}
	put(t, filepath.Join(c.mem.Root, "Work"), "notes.txt", "one")
	if u := c.info("Work").Contents.Unsaved; u == nil || !*u {
		t.Errorf("a kept disk with a new file: unsaved_changes %v, want true", u)
	}
}
