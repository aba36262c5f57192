package snapshot

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// A save that copies asks the collector to keep the process near the
// memory it used before the save plus what the save needs (a soft limit, see
// debug.SetMemoryLimit: exceeded rather than stall when more is live).
// Without it the heap of a save of 200,000 files grows to twice the
// scan's peak, and pages freed in one phase are not reused by the next
// phase's large buffers. The limit is restored when the last save ends:
// the library also runs in the menu-bar app, which may save several disks
// at once.
const (
	saveBudget = 40 << 20 // what a save needs at least
	// liveRoom is what a save needs for each byte live after its scan,
	// in sixteenths (1.6: its heap may grow 60% past that before a
	// collection, instead of the 100% of GOGC), so that a far larger tree
	// gets room in proportion instead of a collector running nonstop.
	liveRoom = 26
)

var saveMemory struct {
	mu     sync.Mutex
	active map[*saveGuard]bool
	base   int64 // memory in use before the first running save began
	prev   int64 // the limit before it
	paused int   // scans running with the collector paused
	gogc   int   // the collector's percent before the first of them
}

// scanRoom is what a scan holds for each path it will find: its entry
// (96 bytes), its path and a margin. A tree shaped like a source checkout
// holds 180 bytes a path at the scan's end (200,000 paths: 36 MB); with
// less room the collector ran four times during its scan, each time
// taking one of two cores and freeing almost nothing.
const scanRoom = 256

// pauseCollector turns the collector's percent off while a save scans,
// under a memory limit with room for hint paths and the held bytes the
// scan keeps live besides them (the index it is compared with: 35 MB for
// 480,000 paths, which left a limit made for the paths alone reached
// halfway through the scan, and the collector running eighty times), which
// still collects if reached, and returns what undoes it. A scan allocates its list once and
// a string per path, all live until it ends: a collection in the middle
// finds nothing to free, and costs more than its marking (it stops each
// worker between its system calls with signals, and its write barriers
// read the list's fresh pages before they are written, each first write
// then a copy-on-write fault that interrupts every core: a third of a
// save-with-nothing-changed of 200,000 files, measured with perf here).
func pauseCollector(before int64, hint, held int) (resume func()) {
	g := limitSaveMemory(before, (int64(hint)*scanRoom+int64(held))*16/liveRoom)
	m := &saveMemory
	m.mu.Lock()
	if m.paused == 0 {
		m.gogc = debug.SetGCPercent(-1)
	}
	m.paused++
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		if m.paused--; m.paused == 0 {
			debug.SetGCPercent(m.gogc)
		}
		m.mu.Unlock()
		g.done()
	}
}

// saveGuard is one running save's share of the limit.
type saveGuard struct{ budget int64 }

// limitSaveMemory counts a save in that began when the process used
// before bytes (inUse) and whose scan left live bytes live, lowering the
// process's soft memory limit, and returns its guard; done counts it out.
// A lower limit set by the program is kept.
func limitSaveMemory(before, live int64) *saveGuard {
	m := &saveMemory
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.active) == 0 {
		m.active = map[*saveGuard]bool{}
		m.prev, m.base = debug.SetMemoryLimit(-1), before
	}
	g := &saveGuard{budget: max(saveBudget, live*liveRoom/16)}
	m.active[g] = true
	applyLimit()
	return g
}

// done counts the save out, restoring the limit after the last one.
func (g *saveGuard) done() {
	m := &saveMemory
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.active, g)
	if len(m.active) == 0 {
		debug.SetMemoryLimit(m.prev)
		return
	}
	applyLimit()
}

// applyLimit sets the limit for the running saves (saveMemory locked).
func applyLimit() {
	m := &saveMemory
	l := m.base
	for g := range m.active {
		l += g.budget
	}
	debug.SetMemoryLimit(min(l, m.prev))
}

// inUse is the memory the Go runtime holds from the system and has not
// returned: what its memory limit counts.
func inUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return math.MaxInt64 / 4
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// liveHeap is the heap the last collection found live.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
