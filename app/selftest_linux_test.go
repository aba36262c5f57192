//go:build linux

package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rambar/internal/testbus"
	"rambar/selftest"
)

// selftestEnv runs rambar's self-test the way a Linux desktop would: a
// private session bus with a tray host on it, and a private home, data
// folder and mount root.
type selftestEnv struct {
	t    *testing.T
	bin  string
	env  []string
	root string // the mount root
	home string
}

func newSelftestEnv(t *testing.T) *selftestEnv {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the self-test mounts tmpfs and must run as root (as CI does)")
	}
	addr := testbus.Private(t)
	hostWatcher(t, addr)
	s := &selftestEnv{t: t, bin: buildRambar(t), root: t.TempDir(), home: t.TempDir()}
	s.env = append(envWithout("DBUS_SESSION_BUS_ADDRESS", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "RAMBAR_DEBUG"),
		"DBUS_SESSION_BUS_ADDRESS="+addr, "HOME="+s.home, "RAMBAR_HOME="+filepath.Join(s.home, "rambar"),
		"RAMBAR_MOUNT_ROOT="+s.root, "RAMBAR_NOTIFY=log", "RAMBAR_TRAY_WAIT=20s")
	t.Cleanup(func() { unmountUnder(t, s.root) })
	return s
}

// run runs the self-test to its end and returns its report and stderr.
func (s *selftestEnv) run(args ...string) (*selftest.Report, string, error) {
	s.t.Helper()
	out := filepath.Join(s.t.TempDir(), "report")
	cmd := exec.Command(s.bin, append(args, "--out", out)...)
	cmd.Env = s.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	err := cmd.Run()
	data, rerr := os.ReadFile(filepath.Join(out, "report.json"))
	if rerr != nil {
		s.t.Fatalf("no report (%v); exit %v; output:\n%s", rerr, err, stderr.String())
	}
	var rep selftest.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		s.t.Fatal(err)
	}
	return &rep, stderr.String(), err
}

// leftovers lists what self-tests left: disks mounted under the mount root
// and run folders in the data folder.
func (s *selftestEnv) leftovers() (mounts, folders []string) {
	data, _ := os.ReadFile("/proc/self/mountinfo")
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 4 && strings.HasPrefix(unescapeMount(f[4]), s.root+"/") {
			mounts = append(mounts, unescapeMount(f[4]))
		}
	}
	folders, _ = filepath.Glob(filepath.Join(s.home, "rambar", "data", "selftest", "run-*"))
	return mounts, folders
}

// linuxSkips are the checks the self-test skips on Linux, on purpose.
var linuxSkips = map[string]bool{"engine.hidden": true, "menu.edit": true, "dialog.focus": true, "notify.auth": true, "notify.post": true}

// `rambar selftest` passes on Linux against the real engine (tmpfs) and the
// real tray over a private bus, makes every check the issue names, and
// leaves nothing behind.
func TestSelftestLinux(t *testing.T) {
	s := newSelftestEnv(t)
	rep, out, err := s.run("selftest")
	if err != nil {
		t.Fatalf("selftest: %v\n%s", err, out)
	}
	got := map[string]selftest.Check{}
	for _, c := range rep.Checks {
		got[c.Name] = c
		want := selftest.Pass
		if linuxSkips[c.Name] {
			want = selftest.Skip
		}
		if strings.HasPrefix(c.Name, "desktop.") {
			// The desktop's pieces are there or not on the machine that
			// runs the tests: either way the line says what it found, and
			// a missing one what stops working without it.
			if c.Status == selftest.Skip && !strings.Contains(c.Detail, "without it: ") || c.Status == selftest.Fail {
				t.Errorf("%s: %s (%s)", c.Name, c.Status, c.Detail)
			}
			continue
		}
		if c.Status != want {
			t.Errorf("%s: %s (%s), want %s", c.Name, c.Status, c.Detail, want)
		}
		if c.Rule == "" && c.Name != "leftovers" {
			t.Errorf("%s says no rule", c.Name)
		}
	}
	for _, name := range []string{"leftovers", "engine.small", "engine.large", "engine.hidden", "files", "eject.busy", "kept.roundtrip",
		"kept.feed", "kept.openwrite", "kept.hardlink", "mirror.inplace", "tray.item", "menu.edit", "dialog.focus", "notify.auth", "notify.post", "login.service", "session.guard", "doctor.capture", "cleanup",
		"desktop.administrator-rights", "desktop.session-bus", "desktop.tray-host", "desktop.zenity", "desktop.notification-server", "desktop.xdg-open"} {
		if _, ok := got[name]; !ok {
			t.Errorf("no %s line in the report", name)
		}
	}
	if title := got["tray.item"].Data["title"]; title != "RAMBar self-test" {
		t.Errorf("tray.item read back %v", title)
	}
	if menu, _ := got["tray.item"].Data["menu"].([]any); len(menu) == 0 || menu[len(menu)-1] != "Quit RAMBar" {
		t.Errorf("the tray's menu read back: %v", got["tray.item"].Data["menu"])
	}
	if rep.Failed != 0 || rep.OS != "linux" || !strings.HasPrefix(rep.System, "Linux ") {
		t.Errorf("report: %d failed, os %q, system %q", rep.Failed, rep.OS, rep.System)
	}
	if !strings.Contains(out, "all checks passed") {
		t.Errorf("no summary on stdout:\n%s", out)
	}
	if m, f := s.leftovers(); len(m)+len(f) > 0 {
		t.Errorf("left behind: mounts %v, folders %v", m, f)
	}
}

// A self-test killed with SIGKILL at each step (disks made, a disk held
// busy, the kept disk's round trip, the menu bar up, the doctor) leaves
// disks and folders; the next run (started as the app is, --selftest)
// cleans them first, passes, and leaves nothing.
func TestSelftestKilled(t *testing.T) {
	s := newSelftestEnv(t)
	for _, at := range []string{
		"making a 4 GiB disk",
		"holding RAMBar Selftest",
		"making a kept disk",
		"pass  kept.roundtrip",
		"pass  session.guard",
	} {
		t.Run(at, func(t *testing.T) {
			cmd := exec.Command(s.bin, "selftest", "--out", t.TempDir())
			cmd.Env = s.env
			var log syncWriter
			cmd.Stderr, cmd.Stdout = &log, &log
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(60 * time.Second)
			for !strings.Contains(log.String(), at) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("never said %q:\n%s", at, log.String())
				}
				time.Sleep(time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the self-test was not killed (%v):\n%s", err, log.String())
			}
			mounts, folders := s.leftovers()
			if len(folders) != 1 {
				t.Errorf("killed at %q: run folders %v, want the killed run's", at, folders)
			}
			doctor := exec.Command(s.bin, "doctor", "--json")
			doctor.Env = s.env
			dout, err := doctor.Output()
			if err != nil {
				t.Fatalf("doctor: %v", err)
			}
			var d struct {
				Leftovers []struct{ Kind, Path string }
			}
			if err := json.Unmarshal(dout, &d); err != nil {
				t.Fatal(err)
			}
			kinds := map[string]int{}
			for _, l := range d.Leftovers {
				kinds[l.Kind]++
			}
			if kinds["selftest-folder"] != 1 || kinds["selftest-disk"] != len(mounts) {
				t.Errorf("doctor lists %v; left: mounts %v, folders %v", d.Leftovers, mounts, folders)
			}
			rep, out, err := s.run("--selftest")
			if err != nil {
				t.Fatalf("the next run: %v\n%s", err, out)
			}
			first := rep.Checks[0]
			if first.Name != "leftovers" || first.Status != selftest.Pass ||
				(len(mounts) > 0 || len(folders) > 0) && !strings.Contains(first.Detail, "cleaned what a stopped self-test left") {
				t.Errorf("the next run's first line: %+v (left: %v, %v)", first, mounts, folders)
			}
			if m, f := s.leftovers(); len(m)+len(f) > 0 {
				t.Errorf("after the next run: mounts %v, folders %v", m, f)
			}
			if !strings.Contains(out, "rambar: notify: RAMBar self-test: ") {
				t.Errorf("started as the app (--selftest), it told no outcome in a notification:\n%s", out)
			}
		})
	}
}

// syncWriter is an io.Writer several goroutines may write to (a child's
// stdout and stderr) and a test may read.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// A notification that could not be posted names what stands behind it:
// no notification server on the session bus, no bus, or a server that
// refused it.
func TestNotifyServerWords(t *testing.T) {
	for _, c := range []struct {
		owned bool
		err   error
		want  string
	}{
		{false, nil, "nothing owns org.freedesktop.Notifications on the session bus"},
		{true, nil, "org.freedesktop.Notifications is on the session bus, and refused it"},
		{false, errors.New("DBus: connect to the session bus: no address"), "no notification server could be asked for (DBus: connect to the session bus: no address)"},
	} {
		if got := notifyServerWords(c.owned, c.err); !strings.Contains(got, c.want) {
			t.Errorf("notifyServerWords(%v, %v) = %q, want it to say %q", c.owned, c.err, got, c.want)
		}
	}
}
