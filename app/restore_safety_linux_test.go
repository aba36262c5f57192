package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRestoreKeepsUnsavedWorkAsASafetySnapshot: through the CLI on real
// tmpfs, `restore Work` over unsaved work is refused naming the unsaved
// paths and changes nothing; `restore Work --force` first saves that work
// as a safety snapshot and says how to bring it back; `snapshots` lists
// it labelled (text and JSON); and restoring it brings the work back.
func TestRestoreKeepsUnsavedWorkAsASafetySnapshot(t *testing.T) {
	c, mp := savedKeptDisk(t)
	put(t, mp, "draft.txt", "unsaved")
	put(t, mp, "a/b.db", "unsaved too")

	for _, tc := range []struct {
		args []string
		exit bool // exits 0
		out  []string
	}{
		{[]string{"restore", "Work"}, false, []string{"Work holds 3 paths not saved since ", " (a, a/b.db, draft.txt): restore --force saves them as a snapshot first"}},
		{[]string{"restore", "Work", "--force"}, true, []string{"Saved what Work held as snapshot ", " (before restore; 3 unsaved paths: a, a/b.db, draft.txt); " +
			"'rambar restore Work --snapshot ", " --force' brings it back", "Restored Work from "}},
	} {
		out, errOut, code := c.run(tc.args...)
		if (code == 0) != tc.exit {
			t.Fatalf("%s: exit %d\n%s%s", strings.Join(tc.args, " "), code, out, errOut)
		}
		for _, w := range tc.out {
			if !strings.Contains(out+errOut, w) {
				t.Errorf("%s says\n%s%s\nwant %q", strings.Join(tc.args, " "), out, errOut, w)
			}
		}
		if !tc.exit {
			if got, err := os.ReadFile(filepath.Join(mp, "draft.txt")); err != nil || string(got) != "unsaved" {
				t.Errorf("the refused restore changed the disk: draft.txt %q, %v", got, err)
			}
			continue
		}
		if _, err := os.Lstat(filepath.Join(mp, "draft.txt")); err == nil {
			t.Errorf("the forced restore left draft.txt")
		}
		id := regexp.MustCompile(`as snapshot (\S+) \(before restore`).FindStringSubmatch(out)
		if id == nil {
			t.Fatalf("no safety snapshot named in %q", out)
		}
		list, _, _ := c.run("snapshots", "Work")
		if !regexp.MustCompile(regexp.QuoteMeta(id[1]) + `.*safety: saved before restore of \S+ \(3 paths unsaved; pruned last\)`).MatchString(list) {
			t.Errorf("snapshots does not label %s:\n%s", id[1], list)
		}
		js, _, _ := c.run("snapshots", "Work", "--json")
		if !strings.Contains(js, `"safety": {`) || !strings.Contains(js, `"kind": "before-restore"`) {
			t.Errorf("snapshots --json does not label it:\n%s", js)
		}
		if out, errOut, code := c.run("restore", "Work", "--snapshot", id[1], "--force"); code != 0 {
			t.Fatalf("restore of the safety snapshot: exit %d\n%s%s", code, out, errOut)
		}
		for p, want := range map[string]string{"notes.txt": "saved", "draft.txt": "unsaved", "a/b.db": "unsaved too"} {
			if got, err := os.ReadFile(filepath.Join(mp, p)); err != nil || string(got) != want {
				t.Errorf("after restoring the safety snapshot %s = %q, %v; want %q", p, got, err, want)
			}
		}
	}
}

// savedKeptDisk makes the kept disk Work through the CLI, with notes.txt
// saved, and returns the CLI and the disk's mount point (ejected, unsaved,
// when the test ends).
func savedKeptDisk(t *testing.T) (*cli, string) {
	t.Helper()
	c := newCLI(t)
	if out, errOut, code := c.run("create", "Work", "64M", "--keep"); code != 0 {
		t.Fatalf("create --keep: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Work") })
	mp := filepath.Join(c.root, "Work")
	put(t, mp, "notes.txt", "saved")
	if out, errOut, code := c.run("save", "Work"); code != 0 {
		t.Fatalf("save: exit %d\n%s%s", code, out, errOut)
	}
	return c, mp
}
