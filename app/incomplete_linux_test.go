package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/tree"
)

// TestKillDuringRestoreNeverReplacesTheSave kills `rambar create --keep`
// with SIGKILL while it restores a kept disk (real tmpfs, many rounds), then
// ejects and creates it again: the partial disk is refused at eject (exit 6,
// "restore incomplete"), dropped with eject --force, and the saved state is
// never replaced by a partial one.
func TestKillDuringRestoreNeverReplacesTheSave(t *testing.T) {
	c := newCLI(t)
	if out, errOut, code := c.run("create", "Work", "256M", "--keep"); code != 0 {
		t.Fatalf("create --keep: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Work") })
	mp := filepath.Join(c.root, "Work")
	for i := 0; i < 3000; i++ {
		put(t, mp, fmt.Sprintf("d%02d/f%04d.txt", i%40, i), strings.Repeat("k", 100+i%900))
	}
	want, err := tree.DigestOf(mp, true)
	if err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := c.run("eject", "Work"); code != 0 {
		t.Fatalf("eject: exit %d\n%s%s", code, out, errOut)
	}
	cut := 0
	for round := 0; round < 12; round++ {
		cmd := exec.Command(c.bin, "create", "Work", "256M", "--keep")
		cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		// Kill it as soon as the restore has begun (a few files are back).
	wait:
		for {
			select {
			case <-exited:
				break wait
			default:
			}
			if ents, _ := os.ReadDir(filepath.Join(mp, "d00")); len(ents) > round%5 {
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-exited
		if len(c.mounted()) != 1 {
			continue // killed before the disk was made
		}
		got, err := tree.DigestOf(mp, true)
		if err != nil {
			t.Fatal(err)
		}
		partial := len(want.Diff(got, 1)) > 0
		out, errOut, code := c.run("eject", "Work")
		switch {
		case partial && (code != exitRefused || !strings.Contains(errOut, "restore incomplete")):
			t.Fatalf("round %d: eject of a partial disk: exit %d, want %d\n%s%s", round, code, exitRefused, out, errOut)
		case partial:
			cut++
			info, _, _ := c.run("info", "Work")
			if !strings.Contains(info, "incomplete") {
				t.Errorf("round %d: info does not say the restore is incomplete:\n%s", round, info)
			}
			list, _, _ := c.run("list")
			if !strings.Contains(list, "restore incomplete") {
				t.Errorf("round %d: list does not say the restore is incomplete:\n%s", round, list)
			}
			if _, errOut, code := c.run("save", "Work"); code != exitRefused {
				t.Errorf("round %d: save of a partial disk: exit %d: %s", round, code, errOut)
			}
			if out, errOut, code := c.run("eject", "Work", "--force"); code != 0 {
				t.Fatalf("round %d: eject --force: exit %d\n%s%s", round, code, out, errOut)
			}
		case code == exitRefused && strings.Contains(errOut, "restore incomplete"):
			// Killed after the last file but before the marker that says the
			// restore finished: the disk cannot tell it is whole, so it is
			// refused like a partial one (safe: the saved copy is kept).
			if out, errOut, code := c.run("eject", "Work", "--force"); code != 0 {
				t.Fatalf("round %d: eject --force: exit %d\n%s%s", round, code, out, errOut)
			}
		case code != 0:
			// The restore had finished (or nothing was restored yet and the
			// disk holds nothing of its own): a plain eject goes through.
			t.Fatalf("round %d: eject of a whole disk: exit %d\n%s%s", round, code, out, errOut)
		}
		// The saved state is whole: the next create brings all of it back.
		if out, errOut, code := c.run("create", "Work", "256M", "--keep"); code != 0 {
			t.Fatalf("round %d: create: exit %d\n%s%s", round, code, out, errOut)
		}
		got, err = tree.DigestOf(mp, true)
		if err != nil {
			t.Fatal(err)
		}
		if diff := want.Diff(got, 5); len(diff) > 0 {
			t.Fatalf("round %d: the saved state was replaced: restored tree differs at %v", round, diff)
		}
		if out, errOut, code := c.run("eject", "Work"); code != 0 {
			t.Fatalf("round %d: eject: exit %d\n%s%s", round, code, out, errOut)
		}
	}
	if cut == 0 {
		t.Error("no round cut a restore short: the test checked nothing")
	}
	t.Logf("%d of 12 restores cut short", cut)
}

// TestInterruptedRestoreEjectsTheDisk sends SIGINT (then SIGTERM) to
// `rambar create --keep` while it restores: it stops, ejects the half-filled
// disk again, exits 9, and the saved state stays whole.
func TestInterruptedRestoreEjectsTheDisk(t *testing.T) {
	c := newCLI(t)
	if out, errOut, code := c.run("create", "Work", "256M", "--keep"); code != 0 {
		t.Fatalf("create --keep: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Work") })
	mp := filepath.Join(c.root, "Work")
	for i := 0; i < 3000; i++ {
		put(t, mp, fmt.Sprintf("d%02d/f%04d.txt", i%40, i), strings.Repeat("i", 100+i%900))
	}
	want, err := tree.DigestOf(mp, true)
	if err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := c.run("eject", "Work"); code != 0 {
		t.Fatalf("eject: exit %d\n%s%s", code, out, errOut)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(c.bin, "create", "Work", "256M", "--keep")
		cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
	wait:
		for {
			select {
			case <-exited:
				break wait
			default:
			}
			if ents, _ := os.ReadDir(filepath.Join(mp, "d00")); len(ents) > 0 {
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		cmd.Process.Signal(sig)
		<-exited
		code := cmd.ProcessState.ExitCode()
		t.Logf("%v: exit %d", sig, code)
		if code == 0 {
			// The restore finished before the signal: then it is whole.
			if got, _ := tree.DigestOf(mp, true); len(want.Diff(got, 5)) > 0 {
				t.Fatalf("%v: exit 0 with a partial disk", sig)
			}
			c.run("eject", "Work")
			continue
		}
		if code != exitCancelled {
			t.Errorf("%v: exit %d, want %d", sig, code, exitCancelled)
		}
		if m := c.mounted(); len(m) != 0 {
			t.Fatalf("%v: the half-filled disk stays mounted: %v", sig, m)
		}
		if out, errOut, code := c.run("create", "Work", "256M", "--keep"); code != 0 {
			t.Fatalf("%v: create: exit %d\n%s%s", sig, code, out, errOut)
		}
		got, _ := tree.DigestOf(mp, true)
		if diff := want.Diff(got, 5); len(diff) > 0 {
			t.Fatalf("%v: the saved state changed at %v", sig, diff)
		}
		c.run("eject", "Work")
	}
}
