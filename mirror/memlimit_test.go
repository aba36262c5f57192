package mirror

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
