package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"rambar/tray"
)

// titlesUI remembers every title the menu ever showed.
type titlesUI struct {
	mu     sync.Mutex
	titles []string
	last   tray.Menu
}

func (u *titlesUI) SetMenu(m tray.Menu) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.last = m
	m.Walk(func(it tray.Item) { u.titles = append(u.titles, it.Title) })
}

func (u *titlesUI) seen(re *regexp.Regexp) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, t := range u.titles {
		if re.MatchString(t) {
			return true
		}
	}
	return false
}

func (u *titlesUI) has(prefix string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	found := false
	u.last.Walk(func(it tray.Item) { found = found || strings.HasPrefix(it.Title, prefix) })
	return found
}

// TestTrayPresetMountShowsRestoreProgress mounts a kept preset from the
// menu through the real wiring (trayDeps, disks, the keeper): the progress
// of restoring its saved files reaches the menu's "Creating Work… N%".
func TestTrayPresetMountShowsRestoreProgress(t *testing.T) {
	c := newContentsApp(t)
	c.run(0, "create", "Work", "64M", "--keep")
	vs, _ := c.mem.List(context.Background())
	for i := 0; i < 50; i++ {
		put(t, vs[0].MountPoint, fmt.Sprintf("dir/f%02d", i), strings.Repeat("x", 1000+i))
	}
	c.run(0, "eject", "Work")
	c.run(0, "preset", "add", "Work", "64M", "--keep")

	d, err := c.a.trayDeps()
	if err != nil {
		t.Fatal(err)
	}
	if d.Disks == nil {
		t.Fatal("trayDeps wired no use cases")
	}
	d.Dialogs, d.EditPresets, d.LaunchAtLogin = nil, nil, nil
	d.Notify = func(title, text string) error { t.Logf("notify: %s: %s", title, text); return nil }
	d.Refresh = 20 * time.Millisecond
	ui := &titlesUI{}
	ctl := tray.New(d, ui)
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() { ctl.Run(ctx); close(ended) }()
	defer func() { cancel(); <-ended }()

	waitUntil(t, "the preset in the menu", func() bool { return ui.has("Work (64M)") })
	ctl.Click("preset/Work")
	waitUntil(t, "the disk in the menu", func() bool { return ui.has("Work — ") })
	if !ui.seen(regexp.MustCompile(`^Creating Work… \d+%$`)) {
		t.Error("the menu never showed the restore's progress (Creating Work… N%)")
	}
	if got := read(t, vs[0].MountPoint+"/dir/f49"); len(got) != 1049 {
		t.Errorf("restored file holds %d bytes", len(got))
	}
}

// waitUntil polls ok; it fails the test after a generous while.
func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTrayShowsIncompleteRestoreAndStoppedReclaim: through the real wiring,
// a disk whose restore did not finish is marked in the menu, and a stopped
// reclaim's staging copy is a warning.
func TestTrayShowsIncompleteRestoreAndStoppedReclaim(t *testing.T) {
	c := newContentsApp(t)
	c.run(0, "create", "Work", "64M", "--keep")
	vs, _ := c.mem.List(context.Background())
	// What a restore killed half way leaves: its record (see disks/incomplete.go).
	rec := fmt.Sprintf(`{"name":"Work","mount_point":%q,"pid":1}`, vs[0].MountPoint)
	put(t, filepath.Join(c.a.Paths.Data, "restoring"), "work.json", rec)
	put(t, filepath.Join(c.a.Paths.Data, "reclaim", "Gone-20261201T080000Z"), "f.txt", "safe")

	d, err := c.a.trayDeps()
	if err != nil {
		t.Fatal(err)
	}
	d.Dialogs, d.EditPresets, d.LaunchAtLogin = nil, nil, nil
	d.Notify = func(title, text string) error { return nil }
	d.Refresh = 20 * time.Millisecond
	ui := &titlesUI{}
	ctl := tray.New(d, ui)
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() { ctl.Run(ctx); close(ended) }()
	defer func() { cancel(); <-ended }()
	waitUntil(t, "the incomplete mark", func() bool { return ui.has("Work (restore incomplete) — ") })
	waitUntil(t, "the stopped reclaim", func() bool { return ui.has("⚠ A reclaim of Gone was stopped") })
	if out := c.run(exitRefused, "eject", "Work"); out != "" {
		t.Errorf("eject printed %q", out)
	}
}
