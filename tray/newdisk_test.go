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
	h.waitFor("of 16 GiB memory")
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
	if want := (NewDiskForm{Name: "RAMDisk", Size: "4G", FS: ramdisk.TmpFS}); dlg.asked != want {
		t.Errorf("window opened with %+v, want the defaults %+v", dlg.asked, want)
	}
}

// The window's "Mirror in place" choice reaches the create use case, and
// zenity's answer for it reads back as a Mirror form in place.
func TestCustomInPlaceReachesCreate(t *testing.T) {
	dlg := &fakeDialogs{checked: make(chan string, 4),
		form: NewDiskForm{Name: "Site", Size: "512M", FS: ramdisk.TmpFS, Contents: ramdisk.Mirror, Folder: "/home/me/site", InPlace: true}}
	created := make(chan string, 1)
	h := start(t, func(d *Deps) {
		d.Dialogs = dlg
		d.Disks = &fakeDisks{eng: d.Engine, created: created}
	})
	h.waitFor("of 16 GiB memory")
	h.c.Click("new/custom")
	<-dlg.checked
	select {
	case got := <-created:
		if got != `Site mirror "/home/me/site" in place` {
			t.Errorf("create got %s", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Custom… made nothing")
	}
	f := parseForms(nil, "Site\x1f\x1fMirror in place: the folder runs from memory at its own path\n", NewDiskForm{Size: "4G"}, nil)
	if f.Contents != ramdisk.Mirror || !f.InPlace {
		t.Errorf("the in place answer read as %+v", f)
	}
	f = parseForms(nil, "Site\x1f\x1fMirror a folder: loaded, changes written back\n", f, nil)
	if f.Contents != ramdisk.Mirror || f.InPlace {
		t.Errorf("the mirror answer read as %+v", f)
	}
	if args := strings.Join(formsArgs(nil, f, nil, true), "\n"); !strings.Contains(args, "--add-combo=Contents [Mirror a folder]") {
		t.Errorf("the window's default: %s", args)
	}
	f.InPlace = true
	if args := strings.Join(formsArgs(nil, f, nil, true), "\n"); !strings.Contains(args, "--add-combo=Contents [Mirror in place]") {
		t.Errorf("the window's default in place: %s", args)
	}
}

// fakeZenity makes a zenity that records its arguments (one a line, in
// argsFile), its stdin (in "stdin" beside it) and its working folder (in
// "cwd"), and prints answer, exiting with code.
func fakeZenity(t *testing.T, answer string, code int) (tool, argsFile string) {
	t.Helper()
	dir := t.TempDir()
	argsFile = filepath.Join(dir, "args")
	answerFile := filepath.Join(dir, "answer")
	if err := os.WriteFile(answerFile, []byte(answer), 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\nfor a in \"$@\"; do printf '%%s\\n' \"$a\"; done > %q\ncat > %q\npwd > %q\ncat %q\nexit %d\n",
		argsFile, filepath.Join(dir, "stdin"), filepath.Join(dir, "cwd"), answerFile, code)
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
	def := NewDiskForm{Name: "RAMDisk", Size: "4G", FS: ramdisk.TmpFS}
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
		got, plan, err := formsNewDisk(context.Background(), nil, tool, "", def, fss, check)
		if err != nil || got != c.want || plan.Name != c.want.Name || plan.FS != c.want.FS {
			t.Errorf("%s: %+v %+v %v; want %+v", c.name, got, plan, err, c.want)
		}
		b, _ := os.ReadFile(argsFile)
		args := string(b)
		for _, want := range []string{"--forms\n", "--add-entry=Name [RAMDisk]\n", "--add-entry=Size [4G] (512M, 4G, 1.5G, or 25% of memory)\n",
			"--add-combo=File system [tmpfs]\n", "--combo-values=tmpfs|zram (compressed)\n", "--add-combo=Contents [None]\n",
			"--combo-values=None: contents are lost when ejected|Keep: saved, and restored when mounted|Mirror a folder: loaded, changes written back|" +
				"Mirror in place: the folder runs from memory at its own path\n"} {
			if !strings.Contains(args, want) {
				t.Errorf("%s: zenity was not given %q:\n%s", c.name, want, args)
			}
		}
	}
	tool, _ := fakeZenity(t, "", 1)
	if _, _, err := formsNewDisk(context.Background(), nil, tool, "", def, fss, check); !errors.Is(err, ramdisk.ErrCancelled) {
		t.Errorf("Cancel: %v", err)
	}
}

// Benchmark This Disk's window on Linux: zenity --text-info in a monospace
// font showing the table (stdin), sized to it, Open Chart as OK (exit 0)
// beside Close (exit 1); with nothing to offer, only Close.
func TestTextInfoResult(t *testing.T) {
	table := "Test  Scratch  Home disk  RAM disk is\n1 GiB write  7,357 MiB/s  1,274 MiB/s  5.8× faster\n"
	for _, c := range []struct {
		name, action string
		code         int
		acted        bool
		want         []string
	}{
		{"Open Chart", "Open Chart", 0, true, []string{"--ok-label=Open Chart", "--cancel-label=Close"}},
		{"Close", "Open Chart", 1, false, []string{"--ok-label=Open Chart", "--cancel-label=Close"}},
		{"no chart", "", 0, false, []string{"--ok-label=Close"}},
	} {
		tool, argsFile := fakeZenity(t, "", c.code)
		acted, err := textInfo(context.Background(), nil, tool, "Benchmark of Scratch", table, c.action)
		if err != nil || acted != c.acted {
			t.Errorf("%s: acted %v, %v; want %v", c.name, acted, err, c.acted)
		}
		b, _ := os.ReadFile(argsFile)
		args := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		want := append([]string{"--text-info", "--title=Benchmark of Scratch", "--font=Monospace 10", "--width=680", "--height=174"}, c.want...)
		if strings.Join(args, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: zenity argv\n%q\nwant\n%q", c.name, args, want)
		}
		if in, _ := os.ReadFile(filepath.Join(filepath.Dir(argsFile), "stdin")); string(in) != table {
			t.Errorf("%s: zenity read %q", c.name, in)
		}
	}
	tool, _ := fakeZenity(t, "", 5)
	if _, err := textInfo(context.Background(), nil, tool, "T", table, ""); err == nil || !strings.Contains(err.Error(), "zenity --text-info") {
		t.Errorf("a failing zenity: %v", err)
	}
}

// The forms window's zenity.ui: Return, Enter and ISO_Enter press the OK
// button; a zenity.ui without that button exactly once is not used.
func TestWithReturn(t *testing.T) {
	ui := []byte(`<object class="GtkDialog" id="zenity_forms_dialog">` + formsOKButton + `<property name="label">OK</property></object>`)
	got, err := withReturn(ui)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{formsOKButton + `<accelerator key="Return" signal="clicked"/>`, `key="KP_Enter"`, `key="ISO_Enter"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("zenity.ui lacks %s:\n%s", want, got)
		}
	}
	for _, bad := range [][]byte{[]byte("<interface/>"), append(append([]byte{}, ui...), ui...)} {
		if _, err := withReturn(bad); err == nil {
			t.Errorf("patched %s", bad)
		}
	}
	if _, err := formsUIDir("", "/usr/bin/zenity"); err == nil {
		t.Error("no folder: no error")
	}
	if got := installedUI("/usr/bin/zenity"); got != "/usr/share/zenity/zenity.ui" {
		t.Errorf("installedUI = %s", got)
	}
}

// The forms window runs in the private folder with the patched zenity.ui
// copied from the tool's installed one; without it, in "/".
func TestFormsRunsInUIDir(t *testing.T) {
	fss := []ramdisk.FileSystem{ramdisk.TmpFS}
	def := NewDiskForm{Name: "RAMDisk", Size: "4G", FS: ramdisk.TmpFS}
	check := func(f NewDiskForm) (ramdisk.Plan, error) {
		return checkForm(f, ramdisk.Facts{Caps: ramdisk.Caps{OS: "linux", FileSystems: fss, MountRoot: "/mnt/rambar"},
			Memory: ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 8 * ramdisk.GiB}})
	}
	tool, argsFile := fakeZenity(t, "\x1f\x1f\n", 0)
	cwd := func() string {
		b, _ := os.ReadFile(filepath.Join(filepath.Dir(argsFile), "cwd"))
		return strings.TrimSpace(string(b))
	}
	uiDir := filepath.Join(t.TempDir(), "zenity")
	args := func() string { b, _ := os.ReadFile(argsFile); return string(b) }
	if _, _, err := formsNewDisk(context.Background(), nil, tool, uiDir, def, fss, check); err != nil || cwd() != "/" {
		t.Errorf("no installed zenity.ui: ran in %q, %v; want /", cwd(), err)
	}
	if !strings.Contains(args(), "--text=Empty fields keep the default in brackets.\n") {
		t.Errorf("without Return, the window says nothing of it:\n%s", args())
	}
	share := filepath.Join(filepath.Dir(filepath.Dir(tool)), "share", "zenity")
	os.MkdirAll(share, 0o755)
	if err := os.WriteFile(filepath.Join(share, "zenity.ui"), []byte("<interface>"+formsOKButton+"</object></interface>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := formsNewDisk(context.Background(), nil, tool, uiDir, def, fss, check); err != nil || cwd() != uiDir {
		t.Errorf("ran in %q, %v; want %s", cwd(), err, uiDir)
	}
	if !strings.Contains(args(), "--text=Empty fields keep the default in brackets. Return creates.\n") {
		t.Errorf("the window does not say Return creates:\n%s", args())
	}
	if b, err := os.ReadFile(filepath.Join(uiDir, "zenity.ui")); err != nil || !strings.Contains(string(b), returnAccels) {
		t.Errorf("zenity.ui %q, %v", b, err)
	}
}
