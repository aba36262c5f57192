package tree

import "time"

// HasWriteBarrier is false: macOS has no call that waits for a write in
// progress to land, so a file written moments ago is copied once it has
// been left alone a little while (snapshot/savehold.go).
const HasWriteBarrier = false

// WriteBarrier does nothing here (HasWriteBarrier).
func WriteBarrier(int) {}

// ChangeClock is the clock file times are set from, now (ns since the
// epoch).
func ChangeClock() int64 { return time.Now().UnixNano() }
