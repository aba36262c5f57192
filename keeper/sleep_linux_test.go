//go:build linux

package keeper

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// fakeLogind is org.freedesktop.login1 on a private bus: Inhibit hands out
// the write end of a pipe, so the test sees when the lock is released.
type fakeLogind struct {
	mu       sync.Mutex
	calls    int
	released chan struct{}
	saved    *atomic.Bool
	early    atomic.Bool // released before the save ran
}

func (f *fakeLogind) Inhibit(what, who, why, mode string) (dbus.UnixFD, *dbus.Error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if what != "sleep" || mode != "delay" {
		return 0, dbus.MakeFailedError(io.ErrUnexpectedEOF)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, dbus.MakeFailedError(err)
	}
	fd := dbus.UnixFD(w.Fd())
	go func() {
		time.Sleep(300 * time.Millisecond) // the reply has gone out with its copy
		w.Close()
		io.Copy(io.Discard, r) // EOF once the watcher closes its copy
		r.Close()
		if !f.saved.Load() {
			f.early.Store(true)
		}
		f.released <- struct{}{}
	}()
	return fd, nil
}

func privateBus(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("dbus-daemon: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(addr)
}

func connect(t *testing.T, addr string) *dbus.Conn {
	t.Helper()
	c, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestWatchSleepSavesBeforeSleepUnderADelayLock(t *testing.T) {
	addr := privateBus(t)
	server := connect(t, addr)
	var saved atomic.Bool
	fake := &fakeLogind{released: make(chan struct{}, 4), saved: &saved}
	if err := server.Export(fake, login1Path, login1Iface); err != nil {
		t.Fatal(err)
	}
	if reply, err := server.RequestName(login1Name, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", login1Name, reply, err)
	}
	client := connect(t, addr)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	saves := make(chan struct{}, 4)
	go func() {
		done <- watchSleep(ctx, client, func(context.Context) {
			time.Sleep(100 * time.Millisecond) // a save takes a while; the lock holds sleep back
			saved.Store(true)
			saves <- struct{}{}
		})
	}()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	calls := func() int { fake.mu.Lock(); defer fake.mu.Unlock(); return fake.calls }
	waitFor("the first inhibitor lock", func() bool { return calls() == 1 })
	time.Sleep(400 * time.Millisecond) // the fake has closed its copy of the lock
	if err := server.Emit(login1Path, login1Iface+".PrepareForSleep", true); err != nil {
		t.Fatal(err)
	}
	select {
	case <-saves:
	case <-time.After(5 * time.Second):
		t.Fatal("no save before sleep")
	}
	select {
	case <-fake.released:
	case <-time.After(5 * time.Second):
		t.Fatal("the delay lock was not released after the save")
	}
	if fake.early.Load() {
		t.Error("the lock was released before the save finished")
	}
	if err := server.Emit(login1Path, login1Iface+".PrepareForSleep", false); err != nil {
		t.Fatal(err)
	}
	waitFor("a new lock after resume", func() bool { return calls() == 2 })
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("watchSleep returned %v", err)
	}
}
