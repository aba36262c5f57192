package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestForcedRestoreOfAnUnreadableSnapshotLeavesTheDiskWhole: `restore
// --force` of a snapshot whose manifest cannot be read fails before it
// removes or writes anything, so the disk is not marked "restore
// incomplete": info and list say nothing of it, its unsaved file is still
// there, and eject is not refused for it.
func TestForcedRestoreOfAnUnreadableSnapshotLeavesTheDiskWhole(t *testing.T) {
	c, mp := savedKeptDisk(t)
	snaps, _ := filepath.Glob(filepath.Join(c.home, "*", "*", "disks", "Work", "snapshots", "*.snap"))
	if len(snaps) == 0 {
		snaps, _ = filepath.Glob(filepath.Join(c.home, "*", "disks", "Work", "snapshots", "*.snap"))
	}
	if len(snaps) != 1 {
		t.Fatalf("snapshots under %s: %v", c.home, snaps)
	}
	b, err := os.ReadFile(snaps[0])
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(snaps[0], b[:len(b)/2], 0o600)
	put(t, mp, "draft.txt", "unsaved")
	out, errOut, code := c.run("restore", "Work", "--force")
	if code == 0 || !strings.Contains(errOut, "damaged") {
		t.Fatalf("restore --force of a damaged snapshot: exit %d\n%s%s", code, out, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(mp, "draft.txt")); err != nil || string(got) != "unsaved" {
		t.Errorf("the disk's unsaved file after the failed restore: %q, %v", got, err)
	}
	info, _, _ := c.run("info", "Work", "--json")
	list, _, _ := c.run("list")
	if strings.Contains(info, "restore_incomplete") || strings.Contains(list, "restore incomplete") {
		t.Errorf("a restore that wrote nothing marked the disk incomplete:\n%s\n%s", info, list)
	}
	if _, errOut, _ := c.run("eject", "Work"); strings.Contains(errOut, "restore incomplete") {
		t.Errorf("eject refused as incomplete: %s", errOut)
	}
}
