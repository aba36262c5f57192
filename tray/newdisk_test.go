package tray

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rambar/ramdisk"
)

// Custom… opens one window with defaults (a free name, 4G, the first file
// system, contents lost) and its contents answer reaches the create use case.
func TestCustomContentsReachCreate(t *testing.T) {
	dlg := &fakeDialogs{checked: make(chan string, 4),
		form: NewDiskForm{Name: "Work", Size: "512M", FS: ramdisk.TmpFS, Contents: ramdisk.Mirror, Folder: "/home/me/src"}}
	created := make(chan string, 1)
	h := start(t, func(d *Deps) {
		d.Dialogs = dlg
		d.Disks = &fakeDisks{eng: d.Engine, created: created}
	})
	h.waitFor("of 16.0 GiB memory")
	h.c.Click("new/custom")
	<-dlg.checked
	select {
	case got := <-created:
		if got != `Work mirror "/home/me/src"` {
			t.Errorf("create got %s", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Custom… made nothing")
	}
	if want := (NewDiskForm{Name: "RAM Disk", Size: "4G", FS: ramdisk.TmpFS}); dlg.asked != want {
		t.Errorf("window opened with %+v, want the defaults %+v", dlg.asked, want)
	}
}

// fakeZenity puts a zenity on PATH that records its arguments (one a line)
// and prints answer, exiting with code.
func fakeZenity(t *testing.T, answer string, code int) (tool, argsFile string) {
	t.Helper()
	dir := t.TempDir()
	argsFile = filepath.Join(dir, "args")
	answerFile := filepath.Join(dir, "answer")
	if err := os.WriteFile(answerFile, []byte(answer), 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\nfor a in \"$@\"; do printf '%%s\\n' \"$a\"; done > %q\ncat %q\nexit %d\n", argsFile, answerFile, code)
	tool = filepath.Join(dir, "zenity")
	if err := os.WriteFile(tool, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return tool, argsFile
}

// The Linux window is one zenity --forms: every field named with its
// default, empty answers keep the defaults, Cancel cancels.
func TestFormsNewDisk(t *testing.T) {
	fss := []ramdisk.FileSystem{ramdisk.TmpFS, ramdisk.ZRAM}
	def := NewDiskForm{Name: "RAM Disk", Size: "4G", FS: ramdisk.TmpFS}
	facts := ramdisk.Facts{Caps: ramdisk.Caps{OS: "linux", FileSystems: fss, MountRoot: "/mnt/rambar"},
		Memory: ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 8 * ramdisk.GiB}}
	check := func(f NewDiskForm) (ramdisk.Plan, error) { return checkForm(f, facts) }
	for _, c := range []struct {
		name, answer string
		want         NewDiskForm
	}{
		{"Create on the defaults", "\x1f\x1f\x1f\n", def},
		{"a line before the answers", "SpiRegistry daemon is running\nWork\x1f\x1f\x1f\n", NewDiskForm{Name: "Work", Size: "4G", FS: ramdisk.TmpFS}},
		{"typed", "Build\x1f512M\x1fzram (compressed)\x1fKeep: saved, and restored when mounted\n",
			NewDiskForm{Name: "Build", Size: "512M", FS: ramdisk.ZRAM, Contents: ramdisk.Keep}},
	} {
		tool, argsFile := fakeZenity(t, c.answer, 0)
		got, plan, err := formsNewDisk(context.Background(), tool, def, fss, check)
		if err != nil || got != c.want || plan.Name != c.want.Name || plan.FS != c.want.FS {
			t.Errorf("%s: %+v %+v %v; want %+v", c.name, got, plan, err, c.want)
		}
		b, _ := os.ReadFile(argsFile)
		args := string(b)
		for _, want := range []string{"--forms\n", "--add-entry=Name [RAM Disk]\n", "--add-entry=Size [4G] (512M, 4G, 1.5G, or 25% of memory)\n",
			"--add-combo=File system [tmpfs]\n", "--combo-values=tmpfs|zram (compressed)\n", "--add-combo=Contents [None]\n",
			"--combo-values=None: contents are lost when ejected|Keep: saved, and restored when mounted|Mirror a folder: loaded, changes written back\n"} {
			if !strings.Contains(args, want) {
				t.Errorf("%s: zenity was not given %q:\n%s", c.name, want, args)
			}
		}
	}
	tool, _ := fakeZenity(t, "", 1)
	if _, _, err := formsNewDisk(context.Background(), tool, def, fss, check); !errors.Is(err, ramdisk.ErrCancelled) {
		t.Errorf("Cancel: %v", err)
	}
}
