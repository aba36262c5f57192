package tray

import (
	"strings"
	"testing"
	"time"

	"rambar/ramdisk"
)

// TestOnlyItsOwnDisksAreAnnouncedGone: a disk this data folder made that
// vanishes is announced gone; one another data folder made, or one no
// RAMBar made, is not this app's to announce.
func TestOnlyItsOwnDisksAreAnnouncedGone(t *testing.T) {
	tests := []struct {
		name, whose string
		announced   bool
	}{
		{name: "Mine", announced: true},
		{name: "Scratch", whose: "is another RAMBar's disk: it was made with the data folder /root/.local/share/rambar of user root (uid 0)"},
		{name: "Handmade", whose: "is not a disk RAMBar made"},
	}
	whose := map[string]string{}
	for _, tt := range tests {
		whose[tt.name] = tt.whose
	}
	h := start(t, func(d *Deps) {
		d.Disks = &fakeDisks{eng: d.Engine, whose: func(v ramdisk.Volume) string { return whose[v.Name] }}
	})
	for _, tt := range tests {
		h.create(tt.name, ramdisk.GiB)
	}
	for _, tt := range tests {
		label := tt.name + " — "
		if tt.whose != "" {
			label = tt.name + " (not made here) — "
		}
		h.waitFor(label) // known to the menu, and whose it is
	}
	for _, tt := range tests {
		h.mem.Vanish(tt.name)
	}
	h.waitFor("No RAM Disks")
	var got []string
	for quiet := time.After(300 * time.Millisecond); ; {
		select {
		case n := <-h.notes:
			got = append(got, n)
			continue
		case <-quiet:
		}
		break
	}
	for _, tt := range tests {
		said := false
		for _, n := range got {
			said = said || strings.HasPrefix(n, tt.name+" is gone")
		}
		if said != tt.announced {
			t.Errorf("%s (whose %q) announced gone: %v, want %v; notifications %q", tt.name, tt.whose, said, tt.announced, got)
		}
	}
}
