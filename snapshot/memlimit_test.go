package snapshot

import (
	"runtime/debug"
	"testing"
)

// TestSaveMemoryLimitIsRestored: running saves lower the soft memory
// limit to what the process used before the first plus each one's room
// (at least saveBudget, more for a large scan); the last one to end puts
// back the limit the program had, and a lower one the program set stays.
func TestSaveMemoryLimitIsRestored(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(orig) })
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	const mib = 1 << 20
	room := int64(100*mib) * liveRoom / 16 // a live heap of 100 MiB: 1.6 times that
	for _, c := range []struct {
		name    string
		program int64 // the limit before
		want    []int64
	}{
		{"no limit", orig, []int64{10*mib + saveBudget, 10*mib + saveBudget + room, 10*mib + room, orig}},
		{"the program's lower limit", 30 * mib, []int64{30 * mib, 30 * mib, 30 * mib, 30 * mib}},
	} {
		debug.SetMemoryLimit(c.program)
		a := limitSaveMemory(10*mib, 0)
		got := []int64{limit()}
		b := limitSaveMemory(999*mib, 100*mib) // a second save: the first one's "before" counts
		got = append(got, limit())
		a.done()
		got = append(got, limit())
		b.done()
		got = append(got, limit())
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: limits %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

// TestScanPausesTheCollectorAndPutsItBack: scans running at once turn the
// collector's percent off under a memory limit; the last to end restores
// the percent and the limit the program had.
func TestScanPausesTheCollectorAndPutsItBack(t *testing.T) {
	orig := debug.SetGCPercent(70)
	origLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(orig); debug.SetMemoryLimit(origLimit) })
	a := pauseCollector(10<<20, 1000, 0)
	b := pauseCollector(10<<20, 1_000_000, 0)
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("percent while scanning = %d, want off", p)
	}
	if l := debug.SetMemoryLimit(-1); l >= origLimit || l < 10<<20+2*saveBudget {
		t.Errorf("limit while scanning = %d", l)
	}
	a()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("percent with one scan left = %d, want off", p)
	}
	b()
	if p := debug.SetGCPercent(70); p != 70 {
		t.Errorf("percent after = %d, want 70", p)
	}
	if l := debug.SetMemoryLimit(-1); l != origLimit {
		t.Errorf("limit after = %d, want %d", l, origLimit)
	}
}

// TestScanRoomHoldsTheIndex: the limit a scan runs under has room for
// the index it is compared with besides its paths, which it keeps live
// throughout (an index larger than the paths' room left the collector
// running nonstop).
func TestScanRoomHoldsTheIndex(t *testing.T) {
	orig := debug.SetGCPercent(70)
	origLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(orig); debug.SetMemoryLimit(origLimit) })
	resume := pauseCollector(10<<20, 1000, 200<<20)
	l := debug.SetMemoryLimit(-1)
	resume()
	if want := int64(10<<20 + 200<<20); l < want {
		t.Errorf("limit while scanning against a 200 MiB index = %d, want at least %d", l, want)
	}
}
