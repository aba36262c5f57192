package tray

import (
	"context"
	"strings"
	"testing"
	"time"

	"rambar/ramdisk"
)

// losing is fakeDisks that tells a lost disk from an ejected one.
type losing struct {
	*fakeDisks
	lost func(v ramdisk.Volume) bool
}

func (l losing) Lost(ctx context.Context, v ramdisk.Volume) bool { return l.lost(v) }

// TestEjectedElsewhereIsNotAnnouncedGone: a disk a RAMBar of this data
// folder ejected (the CLI, try, the agent) is not news; one that really
// vanished is announced gone.
func TestEjectedElsewhereIsNotAnnouncedGone(t *testing.T) {
	asked := make(chan string, 8)
	h := start(t, func(d *Deps) {
		d.Disks = losing{&fakeDisks{eng: d.Engine}, func(v ramdisk.Volume) bool {
			asked <- v.Name
			return v.Name == "Vanished"
		}}
	})
	h.create("Ejected", ramdisk.GiB)
	h.create("Vanished", ramdisk.GiB)
	h.waitFor("Ejected — ")
	h.waitFor("Vanished — ")
	h.mem.Vanish("Ejected")
	h.mem.Vanish("Vanished")
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
	var said []string
	for _, n := range got {
		if name, _, ok := strings.Cut(n, " is gone"); ok {
			said = append(said, name)
		}
	}
	if strings.Join(said, ",") != "Vanished" {
		t.Errorf("announced gone: %q, want only Vanished; notifications %q", said, got)
	}
	if len(asked) != 2 {
		t.Errorf("asked %d times whether lost, want once for each", len(asked))
	}
}
