//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/internal/testbus"

	"github.com/godbus/dbus/v5"
)

// watcher is the smallest StatusNotifierWatcher systray accepts (what a
// panel runs): it records each item that registers.
type watcher struct{ reg chan string }

func (w *watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	id := service
	if strings.HasPrefix(service, "/") {
		id = string(sender) + service // systray sends only the path
	}
	select {
	case w.reg <- id:
	default:
	}
	return nil
}

func (w *watcher) RegisterStatusNotifierHost(sender dbus.Sender, service string) *dbus.Error {
	return nil
}

// hostWatcher plays the panel on the bus at addr until the test ends.
func hostWatcher(t *testing.T, addr string) *watcher {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	w := &watcher{reg: make(chan string, 8)}
	if err := conn.Export(w, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("RequestName(watcher) = %v, %v", r, err)
	}
	return w
}

// fakeDBusLaunch puts a dbus-launch first on a PATH that only records that
// it ran: the autolaunch that would leave a dbus-daemon behind.
func fakeDBusLaunch(t *testing.T) (path, mark string) {
	t.Helper()
	dir := t.TempDir()
	mark = filepath.Join(dir, "launched")
	script := fmt.Sprintf("#!/bin/sh\necho ran > %q\nexit 1\n", mark)
	if err := os.WriteFile(filepath.Join(dir, "dbus-launch"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH"), mark
}

// envWithout is os.Environ without the named variables.
func envWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		keep := true
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				keep = false
			}
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

// With no tray host the menu-bar app exits 7 with one line saying what is
// missing, and never launches a bus of its own.
func TestTrayNoHost(t *testing.T) {
	bin := buildRambar(t)
	path, mark := fakeDBusLaunch(t)
	busAddr := testbus.Private(t)
	for _, c := range []struct {
		name, bus, want string
	}{
		{"no session bus", "", "DBUS_SESSION_BUS_ADDRESS is not set"},
		{"no watcher", busAddr, "nothing on the session bus provides org.kde.StatusNotifierWatcher"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin)
			cmd.Env = append(envWithout("DBUS_SESSION_BUS_ADDRESS", "PATH", "RAMBAR_DEBUG"),
				"PATH="+path, "RAMBAR_HOME="+t.TempDir(), "RAMBAR_MOUNT_ROOT="+t.TempDir(), "RAMBAR_TRAY_WAIT=300ms", "RAMBAR_NOTIFY=log")
			if c.bus != "" {
				cmd.Env = append(cmd.Env, "DBUS_SESSION_BUS_ADDRESS="+c.bus)
			}
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("rambar still runs with no tray host; stderr:\n%s", stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitUnsupported {
				t.Errorf("exit: %v, want %d", err, exitUnsupported)
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "rambar: ") || !strings.Contains(msg, c.want) {
				t.Errorf("stderr = %q, want one line saying %q", msg, c.want)
			}
			if _, err := os.Stat(mark); err == nil {
				t.Error("dbus-launch was run: an autolaunched dbus-daemon would stay behind")
			}
		})
	}
}

// A panel that starts after the app: the app waits, then registers with it.
func TestTrayHostLater(t *testing.T) {
	bin := buildRambar(t)
	addr := testbus.Private(t)
	a := &trayApp{t: t}
	cmd := exec.Command(bin)
	cmd.Env = append(envWithout("DBUS_SESSION_BUS_ADDRESS"), "DBUS_SESSION_BUS_ADDRESS="+addr,
		"RAMBAR_HOME="+t.TempDir(), "RAMBAR_MOUNT_ROOT="+t.TempDir(), "RAMBAR_TRAY_WAIT=2m", "RAMBAR_NOTIFY=log", "RAMBAR_DEBUG=1")
	cmd.Stdout, cmd.Stderr = a, a
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("rambar stderr:\n%s", a.log())
		}
	})
	a.waitLog("waiting up to 2m0s")
	w := hostWatcher(t, addr)
	select {
	case id := <-w.reg:
		if !strings.HasSuffix(id, "/StatusNotifierItem") {
			t.Errorf("registered %q", id)
		}
	case <-exited:
		t.Fatal("rambar exited instead of registering")
	case <-time.After(30 * time.Second):
		t.Fatal("rambar never registered with the watcher that appeared")
	}
}
