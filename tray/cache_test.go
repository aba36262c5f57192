package tray

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"rambar/ramdisk"
)

// fakeCaches records what the menu asked and keeps where each target is.
type fakeCaches struct {
	mu      sync.Mutex
	on      map[string]string // key -> disk
	calls   []string
	repairs chan struct{}
}

func (f *fakeCaches) RepairCaches(ctx context.Context) []error {
	if f.repairs != nil {
		f.repairs <- struct{}{}
	}
	return nil
}

func (f *fakeCaches) CacheTargets() []CacheTarget {
	f.mu.Lock()
	defer f.mu.Unlock()
	return []CacheTarget{
		{Key: "go", Label: "Go build cache", Path: "/h/.cache/go-build", Gain: "measure it", OnDisk: f.on["go"]},
		{Key: "npm", Label: "npm cache", Path: "/h/.npm", Gain: "some speed", OnDisk: f.on["npm"]},
	}
}

func (f *fakeCaches) CacheOn(ctx context.Context, disk, key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "on "+disk+" "+key)
	f.on[key] = disk
	return nil
}

func (f *fakeCaches) CacheOff(ctx context.Context, key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "off "+key)
	delete(f.on, key)
	return nil
}

// TestUseForSubmenu: each disk offers the known caches; a click switches
// one on (ticked), a second click off; one on another disk is disabled there.
func TestUseForSubmenu(t *testing.T) {
	fc := &fakeCaches{on: map[string]string{"npm": "Other"}}
	h := start(t, func(d *Deps) { d.Caches = fc })
	h.create("Build", ramdisk.GiB)
	h.create("Other", ramdisk.GiB)
	// npm is ticked on Other and disabled on Build.
	h.wait("both disks' Use for…", func(m string) bool {
		return strings.Contains(m, "Other — ") && strings.Contains(m, "[ ] npm cache (off)") && strings.Contains(m, "[x] npm cache") &&
			strings.Contains(m, "[ ] Go build cache")
	})
	h.c.Click("disk/Build/cache/go")
	h.note("go is on Build")
	h.c.RefreshNow()
	h.wait("go ticked on Build", func(s string) bool {
		i := strings.Index(s, "Build — ")
		return i >= 0 && strings.Contains(s[i:], "[x] Go build cache")
	})
	h.c.Click("disk/Build/cache/go")
	h.note("go is back")
	fc.mu.Lock()
	calls := strings.Join(fc.calls, "; ")
	fc.mu.Unlock()
	if calls != "on Build go; off go" {
		t.Errorf("calls %q", calls)
	}
}

// TestNoUseForWithoutCaches: without the hook there is no submenu.
func TestNoUseForWithoutCaches(t *testing.T) {
	h := start(t, nil)
	h.create("Build", ramdisk.GiB)
	if m := h.waitFor("Build — "); strings.Contains(m, "Use for…") {
		t.Errorf("Use for… without Deps.Caches:\n%s", m)
	}
}

// TestDiskGoneRepairsCaches: a disk that leaves the list without the menu
// (Finder's eject) has its caches repaired.
func TestDiskGoneRepairsCaches(t *testing.T) {
	fc := &fakeCaches{on: map[string]string{}, repairs: make(chan struct{}, 4)}
	h := start(t, func(d *Deps) { d.Caches = fc })
	v := h.create("Build", ramdisk.GiB)
	h.waitFor("Build — ")
	if err := h.mem.Eject(context.Background(), v, false); err != nil { // behind the menu's back
		t.Fatal(err)
	}
	h.waitGone("Build — ")
	select {
	case <-fc.repairs:
	case <-time.After(5 * time.Second):
		t.Fatal("caches not repaired after the disk went")
	}
}
