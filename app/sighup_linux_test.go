package main

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/tree"
)

// TestSIGHUPDuringSaveLeavesLockFreeAndStoreWhole closes the terminal of a
// long `rambar save` (SIGHUP) while it writes: the save stops the orderly
// way (exit 9, as for Ctrl-C), the disk's lock is free at once, and the
// store is whole: its snapshots are the ones before, and the latest
// restores to exactly what was saved before. Before SIGHUP was handled the
// process died where it stood, as with kill -9.
func TestSIGHUPDuringSaveLeavesLockFreeAndStoreWhole(t *testing.T) {
	c := newCLI(t)
	if out, errOut, code := c.run("create", "Work", "1G", "--keep"); code != 0 {
		t.Fatalf("create --keep: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Work") })
	mp := filepath.Join(c.root, "Work")
	fill := func() {
		for i := 0; i < 10; i++ {
			b := make([]byte, 24<<20)
			rand.Read(b)
			if err := os.WriteFile(filepath.Join(mp, fmt.Sprintf("big%d.bin", i)), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 2000; i++ {
			put(t, mp, fmt.Sprintf("small/%02d/f%04d", i%40, i), fmt.Sprint(time.Now().UnixNano(), i))
		}
	}
	fill()
	if out, errOut, code := c.run("save", "Work"); code != 0 {
		t.Fatalf("save: exit %d\n%s%s", code, out, errOut)
	}
	saved, err := tree.DigestOf(mp, true)
	if err != nil {
		t.Fatal(err)
	}
	snapsBefore, _, _ := c.run("snapshots", "Work", "--json")
	store := filepath.Join(c.home, "data", "disks", "Work")
	for try := 1; ; try++ {
		fill() // all new: the save has 240 MiB to write
		before := treeBytes(store)
		cmd := exec.Command(c.bin, "save", "Work")
		cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); treeBytes(store) < before+16<<20 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond) // until it is writing
		}
		cmd.Process.Signal(syscall.SIGHUP)
		cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		if code == 0 && try < 5 {
			t.Logf("try %d: the save finished before SIGHUP came; again", try)
			if saved, err = tree.DigestOf(mp, true); err != nil {
				t.Fatal(err)
			}
			snapsBefore, _, _ = c.run("snapshots", "Work", "--json")
			continue
		}
		if code != exitCancelled || !strings.Contains(out.String(), "interrupted") {
			t.Fatalf("save stopped by SIGHUP: exit %d (want %d)\n%s", code, exitCancelled, out.String())
		}
		break
	}
	lock, err := os.OpenFile(filepath.Join(c.home, "data", "locks", "work.lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Errorf("the disk's lock is still held after SIGHUP: %v", err)
	}
	lock.Close()
	if snaps, _, _ := c.run("snapshots", "Work", "--json"); snaps != snapsBefore {
		t.Errorf("the snapshots changed:\n%s\nwant\n%s", snaps, snapsBefore)
	}
	if out, errOut, code := c.run("restore", "Work", "--force"); code != 0 {
		t.Fatalf("restore after SIGHUP: exit %d\n%s%s", code, out, errOut)
	}
	got, err := tree.DigestOf(mp, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := saved.Diff(got, 5); len(diff) > 0 || len(got) != len(saved) {
		t.Errorf("the latest snapshot restores differently from what was saved: %v", diff)
	}
	if out, errOut, code := c.run("save", "Work"); code != 0 {
		t.Errorf("a save after SIGHUP: exit %d\n%s%s", code, out, errOut)
	}
}

// treeBytes is the size of the files under dir.
func treeBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
