package main

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// TestSIGHUPDuringSaveLeavesLockFreeAndStoreWhole closes the terminal of a
// long `rambar save` (SIGHUP) while it writes: the save stops the orderly
// way (exit 9, as for Ctrl-C), the disk's lock is free at once, and the
// store is whole: its snapshots are the ones before, and the latest
// restores to exactly what was saved before. Before SIGHUP was handled the
// process died where it stood, as with kill -9.
func TestSIGHUPDuringSaveLeavesLockFreeAndStoreWhole(t *testing.T) {
	// The save is a terminal's child: SIGHUP not ignored. Under nohup (a
	// run of the tests in the background) the children would inherit the
	// ignored SIGHUP, and rambar rightly leaves an ignored SIGHUP alone:
	// a handler here makes the children's SIGHUP the default again.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
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
		writing := snapshotStarted(t, filepath.Join(store, "objects"))
		cmd := exec.Command(c.bin, "save", "Work")
		cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		writing(30 * time.Second) // a 0.2 s save: a poll of the store's size came too late
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

// snapshotStarted watches the store's objects folder; the func it returns
// waits (at most d) until a save makes its new snapshot's folder there: it
// is about to write its objects (240 MiB, a fifth of a second).
func snapshotStarted(t *testing.T, objects string) (wait func(d time.Duration)) {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.InotifyAddWatch(fd, objects, unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_ONLYDIR); err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	return func(d time.Duration) {
		defer unix.Close(fd)
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		buf := make([]byte, 64<<10)
		for deadline := time.Now().Add(d); time.Now().Before(deadline); {
			unix.Poll(pfd, 100)
			n, err := unix.Read(fd, buf)
			if err != nil {
				continue
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				off += unix.SizeofInotifyEvent + int(ev.Len)
				if ev.Mask&unix.IN_ISDIR != 0 {
					return
				}
			}
		}
		t.Log("no snapshot folder made in time; SIGHUP all the same")
	}
}
