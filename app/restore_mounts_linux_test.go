package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/internal/mounttest"
)

// TestRestoreRefusesMountsInside is issue 37's first finding as a user
// meets it: a folder bind-mounted from outside (a second tmpfs, an ext4
// image on a loop device) inside a kept disk, then `restore --force`: it
// exits 6 with one line naming the mount, and nothing changed on the disk
// or outside it; `reclaim --force` the same; a plain restore has nothing
// to do (the disk holds its last save; the mount is not the disk's);
// eject, eject --force and forget leave the mount's files whole too.
func TestRestoreRefusesMountsInside(t *testing.T) {
	for _, kind := range mounttest.Kinds {
		t.Run(kind, func(t *testing.T) {
			c, mp := savedKeptDisk(t)
			m := mounttest.Make(t, kind, filepath.Join(mp, "project"))
			// Without --force, the disk holds its last save exactly (the
			// mount is not the disk's): nothing to do, nothing done.
			if out, errOut, code := c.run("restore", "Work"); code != 0 || !strings.Contains(out, "nothing to restore") {
				t.Errorf("restore: exit %d\n%s%s", code, out, errOut)
			}
			m.Check(t, "restore")
			for _, args := range [][]string{{"restore", "Work", "--force"}, {"reclaim", "Work", "--force"}} {
				out, errOut, code := c.run(args...)
				want := args[0] + " Work: " + m.At + " is a mount of its own (another file system): unmount it first; nothing was changed"
				if code != 6 || !strings.Contains(errOut, want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
					t.Errorf("%v: exit %d\n%s%s\nwant exit 6 and one line: %s", args, code, out, errOut, want)
				}
				m.Check(t, strings.Join(args, " "))
				if got, err := os.ReadFile(filepath.Join(mp, "notes.txt")); err != nil || string(got) != "saved" {
					t.Errorf("%v: the disk's notes.txt is %q, %v", args, got, err)
				}
			}
			c.run("eject", "Work")
			m.Check(t, "eject")
			c.run("eject", "Work", "--force")
			m.Check(t, "eject --force")
			if out, errOut, code := c.run("forget", "Work", "--yes"); code != 0 {
				t.Logf("forget: exit %d\n%s%s", code, out, errOut)
			}
			m.Check(t, "forget")
		})
	}
}
