//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/internal/testbus"
)

// bareSetup is a data folder with a kept disk and a mirrored disk, each
// with an edit that no save has seen, for a bare `rambar` to leave alone.
type bareSetup struct {
	t                *testing.T
	bin, root, home  string
	folder, runtime  string
	env              []string
	kept, mirrorDisk string
}

func newBareSetup(t *testing.T) *bareSetup {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts tmpfs and must run as root (as CI does)")
	}
	s := &bareSetup{t: t, bin: buildRambar(t), root: t.TempDir(), home: t.TempDir(), folder: filepath.Join(t.TempDir(), "site"),
		runtime: t.TempDir()}
	s.env = append(envWithout("DBUS_SESSION_BUS_ADDRESS", "RAMBAR_DEBUG", "XDG_RUNTIME_DIR"),
		"RAMBAR_HOME="+s.home, "RAMBAR_MOUNT_ROOT="+s.root, "RAMBAR_NOTIFY=log", "XDG_RUNTIME_DIR="+s.runtime)
	t.Cleanup(func() { unmountUnder(t, s.root) })
	if err := os.MkdirAll(s.folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.folder, "index.html"), []byte("folder's"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.cli("create", "Kept", "16M", "--keep")
	s.cli("create", "Site", "16M", "--mirror", s.folder)
	s.kept, s.mirrorDisk = filepath.Join(s.root, "Kept"), filepath.Join(s.root, "Site")
	for _, f := range []struct{ path, text string }{
		{filepath.Join(s.kept, "notes.txt"), "not saved yet"},
		{filepath.Join(s.mirrorDisk, "index.html"), "disk's edit"},
		{filepath.Join(s.mirrorDisk, "new.txt"), "new on the disk"},
	} {
		if err := os.WriteFile(f.path, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// cli runs the CLI with args in the setup's environment and returns what
// it printed; a failure fails the test.
func (s *bareSetup) cli(args ...string) string {
	s.t.Helper()
	return runCLI(s.t, s.bin, s.env, args...)
}

// state is what a save or a write-back would change: both stores'
// snapshots and the mirror folder's files.
func (s *bareSetup) state() string {
	s.t.Helper()
	var b strings.Builder
	b.WriteString(s.cli("snapshots", "Kept", "--json"))
	b.WriteString(s.cli("snapshots", "Site", "--json"))
	ents, err := os.ReadDir(s.folder)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(s.folder, e.Name()))
		b.WriteString(e.Name() + "=" + string(data) + "\n")
	}
	return b.String()
}

// bare starts `rambar` with extra environment and returns it running.
func (s *bareSetup) bare(extra ...string) (*exec.Cmd, *trayApp, chan error) {
	s.t.Helper()
	cmd := exec.Command(s.bin)
	cmd.Env = append(append([]string(nil), s.env...), extra...)
	out := &trayApp{t: s.t}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	s.t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	return cmd, out, done
}

func waitExit(t *testing.T, done chan error, out *trayApp) int {
	t.Helper()
	select {
	case err := <-done:
		done <- err // for the cleanup
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(60 * time.Second):
		t.Fatalf("rambar still runs; it said:\n%s", out.log())
	}
	return -1
}

// TestBareRambarTouchesNothing is a bare `rambar` where the menu cannot be
// shown: no session bus, a bus without a system tray, a SIGTERM while it
// waits for one. It exits saying why in one line, and has saved nothing and
// written nothing back into the mirror folder. With a system tray, starting
// the menu saves nothing either, nor does a second copy; the session that
// started saves when it ends (which shows the test would see a save).
func TestBareRambarTouchesNothing(t *testing.T) {
	s := newBareSetup(t)
	before := s.state()
	bus := testbus.Private(t)
	for _, c := range []struct {
		name  string
		env   []string
		term  bool // SIGTERM once it waits
		code  int
		words string
	}{
		{"no session bus", nil, false, exitUnsupported, "no desktop session bus"},
		{"no system tray", []string{"DBUS_SESSION_BUS_ADDRESS=" + bus, "RAMBAR_TRAY_WAIT=300ms"}, false, exitUnsupported, "no system tray"},
		{"stopped while waiting", []string{"DBUS_SESSION_BUS_ADDRESS=" + bus, "RAMBAR_TRAY_WAIT=2m", "RAMBAR_DEBUG=1"}, true, exitCancelled, "stopped while waiting"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, out, done := s.bare(c.env...)
			if c.term {
				out.t = t
				out.waitLog("waiting up to")
				cmd.Process.Signal(syscall.SIGTERM)
			}
			if code := waitExit(t, done, out); code != c.code {
				t.Errorf("exit %d, want %d; it said:\n%s", code, c.code, out.log())
			}
			lines := strings.Split(strings.TrimSuffix(out.log(), "\n"), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "rambar: ") || !strings.Contains(last, c.words) {
				t.Errorf("last line %q, want the reason (%q)", last, c.words)
			}
			if !c.term && len(lines) != 1 {
				t.Errorf("it said more than the reason:\n%s", out.log())
			}
			if strings.Contains(out.log(), "Saving") {
				t.Errorf("it saved before failing:\n%s", out.log())
			}
			if after := s.state(); after != before {
				t.Errorf("a menu bar that never started changed the saved state or the folder:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}

	t.Run("with a system tray", func(t *testing.T) {
		w := hostWatcher(t, bus)
		cmd, out, done := s.bare("DBUS_SESSION_BUS_ADDRESS="+bus, "RAMBAR_TRAY_WAIT=30s")
		select {
		case <-w.reg:
		case <-time.After(30 * time.Second):
			t.Fatalf("the menu never registered; it said:\n%s", out.log())
		}
		_, second, done2 := s.bare("DBUS_SESSION_BUS_ADDRESS=" + bus)
		if code := waitExit(t, done2, second); code != exitOK || !strings.Contains(second.log(), "already running") {
			t.Errorf("a second copy: exit %d, said %q; want 0 and already running", code, second.log())
		}
		if after := s.state(); after != before {
			t.Errorf("starting the menu (or a second copy) saved or wrote back:\nbefore:\n%s\nafter:\n%s", before, after)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		if code := waitExit(t, done, out); code != exitOK {
			t.Errorf("exit %d after SIGTERM; it said:\n%s", code, out.log())
		}
		if !strings.Contains(out.log(), "Saving before quitting") {
			t.Errorf("the session that started did not save at its end:\n%s", out.log())
		}
		after := s.state()
		if after == before || !strings.Contains(after, "index.html=disk's edit") || !strings.Contains(after, "new.txt=new on the disk") {
			t.Errorf("the session's end should have saved both disks and written Site back:\n%s", after)
		}
	})
}
