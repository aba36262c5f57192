//go:build linux

package keeper

import (
	"context"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"rambar/internal/testbus"

	"github.com/godbus/dbus/v5"
)

// fakeLogind is org.freedesktop.login1 on a private bus taking delay
// locks of one kind (what): Inhibit hands out the write end of a pipe, so
// the test sees when the lock is released.
type fakeLogind struct {
	what     string
	calls    atomic.Int32
	released chan struct{}
	saved    *atomic.Bool
	early    atomic.Bool // released before the save ran
}

func (f *fakeLogind) Inhibit(what, who, why, mode string) (dbus.UnixFD, *dbus.Error) {
	f.calls.Add(1)
	if what != f.what || mode != "delay" {
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

func connect(t *testing.T, addr string) *dbus.Conn {
	t.Helper()
	c, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestLogindDelaySavesUnderADelayLock: before sleep and before shutdown
// the save runs at logind's Prepare signal (true) under the delay lock,
// which is released once it is done; a resume, or a shutdown called off
// (false), takes a lock again.
func TestLogindDelaySavesUnderADelayLock(t *testing.T) {
	tests := []struct {
		what, signal string
		watch        func(context.Context, *dbus.Conn, func(context.Context)) error
	}{
		{"sleep", "PrepareForSleep", sleepDelay.watch},
		{"shutdown", "PrepareForShutdown", shutdownDelay.watch},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			addr := testbus.Private(t)
			server := connect(t, addr)
			var saved atomic.Bool
			fake := &fakeLogind{what: tt.what, released: make(chan struct{}, 4), saved: &saved}
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
				done <- tt.watch(ctx, client, func(context.Context) {
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
			waitFor("the first inhibitor lock", func() bool { return fake.calls.Load() == 1 })
			time.Sleep(400 * time.Millisecond) // the fake has closed its copy of the lock
			if err := server.Emit(login1Path, login1Iface+"."+tt.signal, true); err != nil {
				t.Fatal(err)
			}
			select {
			case <-saves:
			case <-time.After(5 * time.Second):
				t.Fatalf("no save before %s", tt.what)
			}
			select {
			case <-fake.released:
			case <-time.After(5 * time.Second):
				t.Fatal("the delay lock was not released after the save")
			}
			if fake.early.Load() {
				t.Error("the lock was released before the save finished")
			}
			if err := server.Emit(login1Path, login1Iface+"."+tt.signal, false); err != nil {
				t.Fatal(err)
			}
			waitFor("a new lock after it was called off", func() bool { return fake.calls.Load() == 2 })
			cancel()
			if err := <-done; err != context.Canceled {
				t.Errorf("the watcher returned %v", err)
			}
		})
	}
}
