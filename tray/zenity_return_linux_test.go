package tray

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rambar/ramdisk"
)

// xvfb starts a private X server (Xvfb picks a free display and names it
// on a pipe) for the test, and ends it by its pid when the test ends.
func xvfb(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"Xvfb", "xdotool", "zenity"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (apt-get install xvfb xdotool zenity): %v", tool, err)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1024x768x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb named no display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

// xdotool runs one xdotool command on the test's display.
func xdotool(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("xdotool", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("xdotool %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// The real zenity --forms under Xvfb: Return in a field (the first, or the
// second after Tab) creates with what was typed, the other fields keeping
// their defaults; the window runs in RAMBar's private folder (0700) whose
// zenity.ui (0600) gives its OK button Return.
func TestFormsReturnCreates(t *testing.T) {
	display := xvfb(t)
	t.Setenv("DISPLAY", display)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("NO_AT_BRIDGE", "1")                                      // no accessibility bus
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus") // no bus autolaunched
	tool, err := exec.LookPath("zenity")
	if err != nil {
		t.Fatal(err)
	}
	fss := []ramdisk.FileSystem{ramdisk.TmpFS, ramdisk.ZRAM}
	def := NewDiskForm{Name: "RAMDisk", Size: "4G", FS: ramdisk.TmpFS}
	facts := ramdisk.Facts{Caps: ramdisk.Caps{OS: "linux", FileSystems: fss, MountRoot: "/mnt/rambar"},
		Memory: ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 8 * ramdisk.GiB}}
	check := func(f NewDiskForm) (ramdisk.Plan, error) { return checkForm(f, facts) }
	uiDir := filepath.Join(t.TempDir(), "data", "zenity")
	for _, c := range []struct {
		name string
		keys [][]string // xdotool commands, in order
		want NewDiskForm
	}{
		{"first field", [][]string{{"type", "--delay", "20", "Scratch"}, {"key", "Return"}},
			NewDiskForm{Name: "Scratch", Size: "4G", FS: ramdisk.TmpFS}},
		{"second field", [][]string{{"key", "Tab"}, {"type", "--delay", "20", "2G"}, {"key", "KP_Enter"}},
			NewDiskForm{Name: "RAMDisk", Size: "2G", FS: ramdisk.TmpFS}},
	} {
		type answer struct {
			form NewDiskForm
			plan ramdisk.Plan
			err  error
		}
		// One form shown, its keys typed, its answer read.
		run := func() answer {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			done := make(chan answer, 1)
			go func() {
				f, p, err := formsNewDisk(ctx, nil, tool, uiDir, def, fss, check)
				done <- answer{f, p, err}
			}()
			win := xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^New RAM Disk$")
			xdotool(t, "windowfocus", "--sync", strings.Fields(win)[0])
			for _, k := range c.keys {
				xdotool(t, k...)
			}
			return <-done // Return not taken: the window stays until ctx ends, and err says so
		}
		got := run()
		var crash *exec.ExitError
		if errors.As(got.err, &crash) && !crash.Exited() {
			// zenity itself died of a signal (it has aborted with a double
			// free under Xvfb): not the Return this test is about; once more.
			t.Logf("%s: zenity crashed (%v); showing the form again", c.name, got.err)
			got = run()
		}
		if got.err != nil || got.form != c.want || got.plan.Name != c.want.Name {
			t.Errorf("%s: %+v %+v %v; want %+v", c.name, got.form, got.plan, got.err, c.want)
		}
	}
	for path, want := range map[string]os.FileMode{uiDir: 0o700 | os.ModeDir, filepath.Join(uiDir, "zenity.ui"): 0o600} {
		if st, err := os.Stat(path); err != nil {
			t.Error(err)
		} else if st.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, st.Mode(), want)
		}
	}
}
