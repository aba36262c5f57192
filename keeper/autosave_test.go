package keeper

import (
	"testing"
	"time"

	"rambar/internal/boottime"
)

// TestSaveDue: a save of this boot is timed on the boot clock whatever the
// wall clock says; otherwise by the wall clock, where a last save in the
// future (the clock was set back) is due.
func TestSaveDue(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	clock := boottime.Stamp{Boot: "this boot", NS: int64(100 * time.Hour)}
	ago := func(d time.Duration) boottime.Stamp { return boottime.Stamp{Boot: clock.Boot, NS: clock.NS - int64(d)} }
	const every = 10 * time.Minute
	for _, tt := range []struct {
		name  string
		st    State
		every time.Duration
		due   bool
	}{
		{"never saved", State{}, every, true},
		{"no interval", State{}, 0, false},
		{"5 min ago by the wall clock", State{LastSave: now.Add(-5 * time.Minute)}, every, false},
		{"11 min ago by the wall clock", State{LastSave: now.Add(-11 * time.Minute)}, every, true},
		{"an hour in the future, no boot clock (set back)", State{LastSave: now.Add(time.Hour)}, every, true},
		{"a minute in the future, another boot", State{LastSave: now.Add(time.Minute), LastSaveClock: boottime.Stamp{Boot: "before", NS: 1}}, every, true},
		{"in the future by the wall clock, 2 min ago on the boot clock", State{LastSave: now.Add(time.Hour), LastSaveClock: ago(2 * time.Minute)}, every, false},
		{"1 min ago by the wall clock (set back 10 min), 11 min ago on the boot clock", State{LastSave: now.Add(-time.Minute), LastSaveClock: ago(11 * time.Minute)}, every, true},
		{"a day ago by the wall clock (set forward), 2 min ago on the boot clock", State{LastSave: now.Add(-24 * time.Hour), LastSaveClock: ago(2 * time.Minute)}, every, false},
	} {
		if got := SaveDue(tt.st, tt.every, now, clock); got != tt.due {
			t.Errorf("%s: due %v, want %v", tt.name, got, tt.due)
		}
	}
}
