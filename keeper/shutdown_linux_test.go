//go:build linux

package keeper

import (
	"context"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// shutdownLogind is org.freedesktop.login1 taking "shutdown" delay locks:
// each is the write end of a pipe, so the test sees when it is released.
type shutdownLogind struct {
	calls    atomic.Int32
	released chan struct{}
	saved    *atomic.Bool
	early    atomic.Bool
}

func (f *shutdownLogind) Inhibit(what, who, why, mode string) (dbus.UnixFD, *dbus.Error) {
	f.calls.Add(1)
	if what != "shutdown" || mode != "delay" {
		return 0, dbus.MakeFailedError(io.ErrUnexpectedEOF)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, dbus.MakeFailedError(err)
	}
	fd := dbus.UnixFD(w.Fd())
	go func() {
		time.Sleep(300 * time.Millisecond)
		w.Close()
		io.Copy(io.Discard, r)
		r.Close()
		if !f.saved.Load() {
			f.early.Store(true)
		}
		f.released <- struct{}{}
	}()
	return fd, nil
}

// The save runs at PrepareForShutdown(true) under the delay lock, which is
// released once it is done; a shutdown called off takes a lock again.
func TestWatchShutdownSavesUnderADelayLock(t *testing.T) {
	addr := privateBus(t)
	server := connect(t, addr)
	var saved atomic.Bool
	fake := &shutdownLogind{released: make(chan struct{}, 4), saved: &saved}
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
		done <- watchShutdown(ctx, client, func(context.Context) {
			time.Sleep(100 * time.Millisecond)
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
	waitFor("the inhibitor lock", func() bool { return fake.calls.Load() == 1 })
	time.Sleep(400 * time.Millisecond)
	if err := server.Emit(login1Path, login1Iface+".PrepareForShutdown", true); err != nil {
		t.Fatal(err)
	}
	select {
	case <-saves:
	case <-time.After(5 * time.Second):
		t.Fatal("no save before shutdown")
	}
	select {
	case <-fake.released:
	case <-time.After(5 * time.Second):
		t.Fatal("the delay lock was not released after the save")
	}
	if fake.early.Load() {
		t.Error("the lock was released before the save finished")
	}
	if err := server.Emit(login1Path, login1Iface+".PrepareForShutdown", false); err != nil {
		t.Fatal(err)
	}
	waitFor("a new lock once the shutdown was called off", func() bool { return fake.calls.Load() == 2 })
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("watchShutdown returned %v", err)
	}
}
