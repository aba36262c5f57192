// Package boottime reads a clock that counts from the machine's start,
// sleep included, and never goes back when the wall clock is set: how long
// ago something happened, even in another process, as long as the machine
// has not restarted since. Each reading names its boot, so one from before
// a restart is never compared with one after.
package boottime

import "time"

// Stamp is a moment on one boot's clock.
type Stamp struct {
	// Boot names the boot ("" when it cannot be told: then no two stamps
	// compare).
	Boot string `json:"boot,omitempty"`
	// NS is the clock's reading in nanoseconds.
	NS int64 `json:"ns,omitempty"`
}

// Now reads the clock.
func Now() Stamp {
	ns, ok := clock()
	if !ok {
		return Stamp{}
	}
	return Stamp{Boot: bootID(), NS: ns}
}

// Sub is how long before s the moment o was; ok is false when the two are
// not of the same known boot.
func (s Stamp) Sub(o Stamp) (d time.Duration, ok bool) {
	if s.Boot == "" || s.Boot != o.Boot {
		return 0, false
	}
	return time.Duration(s.NS - o.NS), true
}

// Since is how long ago s was; ok is false when s is of another boot or
// not known.
func Since(s Stamp) (time.Duration, bool) { return Now().Sub(s) }
