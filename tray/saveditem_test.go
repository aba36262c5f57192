package tray

import (
	"testing"
	"time"

	"rambar/ramdisk"
)

// TestSavedLine: a kept disk's submenu says when it was saved and what its
// change feed counts as changed since; nothing for a disk never saved, not
// kept, or busy.
func TestSavedLine(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	kept := func(ago time.Duration, changed int, unsaved bool) diskState {
		return diskState{Volume: ramdisk.Volume{Name: "Work"}, Kept: true, Saved: now.Add(-ago), Changed: changed, Unsaved: unsaved}
	}
	for _, c := range []struct {
		name string
		d    diskState
		want string
	}{
		{"counted", kept(3*time.Second, 12, true), "• Saved 3 s ago, 12 paths changed since"},
		{"one", kept(90*time.Second, 1, true), "• Saved 1 min ago, 1 path changed since"},
		{"nothing", kept(5*time.Minute, 0, false), "Saved 5 min ago, nothing changed since"},
		{"walked", kept(2*time.Hour, -1, true), "• Saved 2 h ago, changed since"},
		{"unknown", kept(2*time.Hour, -1, false), "Saved 2 h ago"},
		{"never", diskState{Kept: true, Changed: -1}, ""},
		{"not kept", diskState{Saved: now, Changed: 3}, ""},
		{"saving", func() diskState { d := kept(time.Second, 2, true); d.Op = opSaving; return d }(), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			it, ok := savedItem(nil, c.d, "disk/Work", now)
			if got := map[bool]string{true: it.Title}[ok]; got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if ok && !it.Disabled {
				t.Error("the line is an action")
			}
		})
	}
}
