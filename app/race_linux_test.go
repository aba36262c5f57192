package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rambar/tree"
)

// start runs the real binary in the background; wait returns its exit
// code and output.
func (c *cli) start(args ...string) (wait func() (int, string)) {
	cmd := exec.Command(c.bin, args...)
	cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	return func() (int, string) {
		cmd.Wait()
		return cmd.ProcessState.ExitCode(), out.String()
	}
}

// TestSaveRacingEjectNeverSavesAnEmptyDisk starts `rambar save` and
// `rambar eject` of one kept disk at the same moment, many times (real
// tmpfs): whichever goes first, the saved state afterwards is the disk's
// last contents, never the empty mount point left by the eject.
func TestSaveRacingEjectNeverSavesAnEmptyDisk(t *testing.T) {
	c := newCLI(t)
	if out, errOut, code := c.run("create", "Work", "128M", "--keep"); code != 0 {
		t.Fatalf("create --keep: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Work") })
	mp := filepath.Join(c.root, "Work")
	for i := 0; i < 800; i++ {
		put(t, mp, fmt.Sprintf("d%02d/f%04d.txt", i%20, i), strings.Repeat("s", 200+i))
	}
	for round := 0; round < 20; round++ {
		put(t, mp, "round.txt", fmt.Sprint(round))
		want, err := tree.DigestOf(mp, true)
		if err != nil {
			t.Fatal(err)
		}
		save, eject := c.start("save", "Work"), c.start("eject", "Work")
		scode, sout := save()
		ecode, eout := eject()
		if ecode != 0 {
			t.Fatalf("round %d: eject: exit %d\n%s", round, ecode, eout)
		}
		if scode != 0 && scode != exitNotFound {
			t.Fatalf("round %d: save: exit %d\n%s", round, scode, sout)
		}
		if len(c.mounted()) != 0 {
			t.Fatalf("round %d: still mounted after eject: %v", round, c.mounted())
		}
		if out, errOut, code := c.run("create", "Work", "128M", "--keep"); code != 0 {
			t.Fatalf("round %d: create: exit %d\n%s%s", round, code, out, errOut)
		}
		got, err := tree.DigestOf(mp, true)
		if err != nil {
			t.Fatal(err)
		}
		if diff := want.Diff(got, 5); len(diff) > 0 {
			t.Fatalf("round %d: saved state differs from the disk's last contents at %v (save: %d %s)", round, diff, scode, sout)
		}
	}
}

// TestConcurrentPresetAddsLoseNothing runs many `rambar preset add` at
// once: every one exits 0 and every preset is there afterwards.
func TestConcurrentPresetAddsLoseNothing(t *testing.T) {
	c := newCLI(t)
	const n = 30
	var waits []func() (int, string)
	for i := 0; i < n; i++ {
		waits = append(waits, c.start("preset", "add", fmt.Sprintf("P%02d", i), "64M"))
	}
	for i, wait := range waits {
		if code, out := wait(); code != 0 {
			t.Errorf("preset add P%02d: exit %d\n%s", i, code, out)
		}
	}
	out, errOut, code := c.run("preset", "list", "--json")
	if code != 0 {
		t.Fatalf("preset list: exit %d %s", code, errOut)
	}
	if got := strings.Count(out, `"name": "P`); got != n {
		t.Errorf("%d presets after %d concurrent adds:\n%s", got, n, out)
	}
}

// TestTwoCreatesOfOneNameExit0And8 starts two `rambar create` of one name
// at once, several times (real tmpfs): one makes it, the other exits 8, and
// one tmpfs is mounted there.
func TestTwoCreatesOfOneNameExit0And8(t *testing.T) {
	c := newCLI(t)
	for round := 0; round < 6; round++ {
		a, b := c.start("create", "Same", "64M"), c.start("create", "Same", "64M")
		ca, oa := a()
		cb, ob := b()
		if !(ca == 0 && cb == exitExists || ca == exitExists && cb == 0) {
			t.Errorf("round %d: exits %d and %d, want 0 and %d\n%s\n%s", round, ca, cb, exitExists, oa, ob)
		}
		if m := c.mounted(); len(m) != 1 {
			t.Errorf("round %d: mounted %v, want one disk", round, m)
		}
		if out, errOut, code := c.run("eject", "Same"); code != 0 {
			t.Fatalf("round %d: eject: exit %d\n%s%s", round, code, out, errOut)
		}
	}
}
