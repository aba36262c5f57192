package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCreateNamesTheSnapshotItsFolderLacks: through the CLI, a Mirror
// disk's save whose write-back failed (the folder moved away meanwhile)
// holds a file the folder lacks; the disk is then ejected without saving.
// The next `create --mirror` of the folder says so and names that
// snapshot, `snapshots` marks it, and restoring it brings the file back.
func TestCreateNamesTheSnapshotItsFolderLacks(t *testing.T) {
	c := newCLI(t)
	folder := filepath.Join(t.TempDir(), "site")
	put(t, folder, "index.html", "<p>hi</p>")
	if out, errOut, code := c.run("create", "Site", "64M", "--mirror", folder); code != 0 {
		t.Fatalf("create --mirror: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Site") })
	mp := filepath.Join(c.root, "Site")
	put(t, mp, "draft.md", "written on the disk only")
	if err := os.Rename(folder, folder+".away"); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("save", "Site")
	if code == 0 {
		t.Fatalf("save with its folder gone: exit 0\n%s%s", out, errOut)
	}
	lost := regexp.MustCompile(`snapshot (\d{8}T\d{6}\.\d{6}Z)`).FindStringSubmatch(out + errOut)
	if lost == nil {
		t.Fatalf("the failed write-back names no snapshot:\n%s%s", out, errOut)
	}
	if err := os.Rename(folder+".away", folder); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := c.run("eject", "Site", "--no-save", "--force"); code != 0 {
		t.Fatalf("eject --no-save: exit %d\n%s%s", code, out, errOut)
	}

	out, errOut, code = c.run("create", "Site", "64M", "--mirror", folder)
	if code != 0 {
		t.Fatalf("create again: exit %d\n%s%s", code, out, errOut)
	}
	for _, w := range []string{"Warning: Site's snapshot " + lost[1] + " holds 1 path that " + folder + " lacks (draft.md)",
		"'rambar restore Site --snapshot " + lost[1] + " --force' brings it back"} {
		if !strings.Contains(out, w) {
			t.Errorf("create says\n%s%s\nwant %q", out, errOut, w)
		}
	}
	if list, _, _ := c.run("snapshots", "Site"); !regexp.MustCompile(regexp.QuoteMeta(lost[1]) + `.*safety: 1 path not in the folder`).MatchString(list) {
		t.Errorf("snapshots does not mark %s:\n%s", lost[1], list)
	}
	if out, errOut, code := c.run("restore", "Site", "--snapshot", lost[1], "--force"); code != 0 {
		t.Fatalf("restore of the marked snapshot: exit %d\n%s%s", code, out, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(mp, "draft.md")); err != nil || string(got) != "written on the disk only" {
		t.Errorf("restored draft.md = %q, %v", got, err)
	}
}
