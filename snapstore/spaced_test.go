package snapstore

import (
	"slices"
	"testing"
	"time"
)

// TestSpacedKeepsSavePointsApart: saves every few seconds for hours keep
// their newest, one of the last ten minutes, one of the last hour and one
// older, not the newest four.
func TestSpacedKeepsSavePointsApart(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	idAt := func(ago time.Duration) string { return now.Add(-ago).UTC().Format(idLayout) }
	tests := []struct {
		name  string
		ages  []time.Duration // oldest first
		keepN int
		want  []time.Duration
	}{
		{"one", []time.Duration{time.Minute, 0}, 1, []time.Duration{0}},
		{"two keep the one before", []time.Duration{3 * time.Minute, 2 * time.Minute, time.Minute, 0}, 2, []time.Duration{time.Minute, 0}},
		{"spread", []time.Duration{30 * time.Hour, 3 * time.Hour, 40 * time.Minute, 20 * time.Minute, 9 * time.Minute, 5 * time.Minute, 0}, 4,
			[]time.Duration{3 * time.Hour, 40 * time.Minute, 9 * time.Minute, 0}},
		{"last span keeps its newest", []time.Duration{50 * time.Hour, 30 * time.Hour, 5 * time.Minute, 0}, 3,
			[]time.Duration{30 * time.Hour, 5 * time.Minute, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ids, want []string
			for _, a := range tt.ages {
				ids = append(ids, idAt(a))
			}
			for _, a := range tt.want {
				want = append(want, idAt(a))
			}
			var got []string
			for id := range spaced(ids, tt.keepN, now) {
				got = append(got, id)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("kept %v, want %v", got, want)
			}
		})
	}
}

// TestContinuousSavesMoveOnThroughTheSpans: a save every 30 s for a day,
// pruned spaced to 4 each time, always keeps the newest and ends with save
// points about ten minutes, an hour and a day apart.
func TestContinuousSavesMoveOnThroughTheSpans(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	var now time.Time
	for i := range 2 * 60 * 26 {
		now = start.Add(time.Duration(i) * 30 * time.Second)
		ids = append(ids, now.Format(idLayout))
		keep := spaced(ids, 4, now)
		ids = slices.DeleteFunc(ids, func(id string) bool { return !keep[id] })
		if ids[len(ids)-1] != now.Format(idLayout) {
			t.Fatal("the newest save was dropped")
		}
	}
	if len(ids) != 4 {
		t.Fatalf("kept %v", ids)
	}
	oldest, _ := time.Parse(idLayout, ids[0])
	if age := now.Sub(oldest); age < time.Hour {
		t.Fatalf("the oldest save point kept is %s old: %v", age, ids)
	}
}
