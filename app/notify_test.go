package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"rambar/darwin/cocoa"
	"rambar/disks"
	"rambar/keeper"
	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// noticeRecorder stands for the desktop: the one notifier's backend.
type noticeRecorder struct {
	mu    sync.Mutex
	shown []string
}

func (r *noticeRecorder) show(_ context.Context, title, text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shown = append(r.shown, title+": "+text)
	return nil
}

func (r *noticeRecorder) saw(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		for _, s := range r.shown {
			if strings.Contains(s, want) {
				r.mu.Unlock()
				return
			}
		}
		r.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("no notice saying %q reached the notifier; it got %q", want, r.shown)
}

// Every notice of the menu-bar app reaches the App's one notifier: the
// tray's own (d.Notify), a Mirror write-back's conflicts, a failed save at
// quit and before sleep. A notice that bypasses it (osascript's display
// notification on a Mac) never reaches the recorder.
func TestEveryNoticeGoesThroughTheNotifier(t *testing.T) {
	home := t.TempDir()
	eng := ramdisktest.NewMem(t.TempDir(), ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 8 * ramdisk.GiB})
	rec := &noticeRecorder{}
	a := &App{
		Stdout: &strings.Builder{}, Stderr: &strings.Builder{},
		NewEngine: func() (ramdisk.Engine, error) { return eng, nil },
		Paths:     ramdisk.Paths{Settings: filepath.Join(home, "settings.plist"), Data: filepath.Join(home, "data")},
		Getenv:    func(string) string { return "" },
		Now:       time.Now,
	}
	a.notifyVia = rec.show
	d, err := a.trayDeps()
	if err != nil {
		t.Fatal(err)
	}
	a.natives(&d)
	d.Notify("Could not eject Work", "busy")
	rec.saw(t, "Could not eject Work: busy")

	m, ok := d.Disks.(*disks.Menu)
	if !ok || m.Conflicts == nil {
		t.Fatal("the menu's conflicts are not heard")
	}
	m.Conflicts("Work", keeper.WriteBack{Folder: "/src", Conflicts: []keeper.Conflict{{Path: "a.txt", What: "both changed"}}})
	rec.saw(t, "Work: 1 conflict in /src")

	failing := &cocoa.Guard{Save: func(context.Context, cocoa.Event) error { return errors.New("store full") }}
	a.endSession(failing, a.notices())
	rec.saw(t, "RAMBar could not save before quitting: save (terminating): store full")

	c := a.newContents(m)
	if c == nil {
		t.Fatal("no contents with a data folder")
	}
	c.report(func(title, text string) error { a.notices().Go(title, text); return nil })("Scratch", keeper.Result{}, errors.New("no space"))
	rec.saw(t, "Could not save Scratch: no space")
}

// What the wiring test cannot reach, the sources show: a desktop
// notification is sent in one place per OS (desktopNotify), the tray's
// Notify is the notifier's and nothing else's, and no notice path calls
// zenity or a cocoa.Notifier of its own.
func TestNoNoticeBypassesTheNotifier(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	rules := []struct {
		re      *regexp.Regexp
		allowed map[string]bool
		why     string
	}{
		{regexp.MustCompile(`\btray\.Notify\b`), map[string]bool{"natives_darwin.go": true, "natives_other.go": true},
			"tray.Notify (zenity, osascript on a Mac) is desktopNotify's backend only"},
		{regexp.MustCompile(`\bcocoa\.Notifier\{`), map[string]bool{"natives_darwin.go": true}, "one cocoa.Notifier, desktopNotify's"},
		{regexp.MustCompile(`\bzenity\.`), nil, "zenity is the tray package's"},
		{regexp.MustCompile(`\.Notify = `), map[string]bool{"tray_wire.go": true}, "the tray's Notify is set once, to the notifier's"},
		{regexp.MustCompile(`\bnotifier\{`), map[string]bool{"notify.go": true}, "the App has one notifier (notices)"},
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rules {
			if r.re.Match(src) && !r.allowed[f] {
				t.Errorf("%s: %s: %s", f, r.re, r.why)
			}
		}
	}
	wire, err := os.ReadFile("tray_wire.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(wire), "d.Notify = notes.Notify") {
		t.Error("tray_wire.go: the tray's Notify is not the notifier's")
	}
}
