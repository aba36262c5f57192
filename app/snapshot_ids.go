package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"rambar/mirror"
)

// Snapshot IDs are UTC times to the microsecond (20261129T120000.004211Z),
// which nobody types. resolveSnapshot takes what a person would:
//
//   - "latest": the newest save;
//   - the ID, or any unique beginning of it: 20261129T1200, 20261129T120000Z
//     (the Z and the fraction may be left out);
//   - a day, in local time: 2026-11-29 (the one save made that day);
//   - the time as `snapshots` shows it, in local time to the minute or
//     second: "2026-11-29 12:00", 2026-11-29T12:00:05 (with a trailing Z it
//     is UTC).
//
// It returns the one snapshot meant. No match is "no such snapshot" (exit
// 4) naming the ones there are; several are a usage error naming them.
func resolveSnapshot(name, typed string, snaps []mirror.Snapshot, loc *time.Location) (string, error) {
	typed = strings.TrimSpace(typed)
	var hits []mirror.Snapshot
	if id, ok := latestSnapshot(typed, snaps); ok {
		return id, nil
	}
	if day, ok := snapshotDay(typed, loc); ok {
		for _, s := range snaps {
			if !s.Time.Before(day) && s.Time.Before(day.AddDate(0, 0, 1)) {
				hits = append(hits, s)
			}
		}
	} else if strings.ContainsAny(typed, "-:") {
		at, precision, err := parseSnapshotTime(typed, loc)
		if err != nil {
			return "", usagef("--snapshot %q: %v", typed, err)
		}
		for _, s := range snaps {
			if s.Time.Truncate(precision).Equal(at) {
				hits = append(hits, s)
			}
		}
	} else {
		prefix := strings.TrimSuffix(typed, "Z")
		for _, s := range snaps {
			if s.ID == typed || (prefix != "" && strings.HasPrefix(s.ID, prefix)) {
				hits = append(hits, s)
			}
		}
	}
	switch {
	case len(hits) == 1:
		return hits[0].ID, nil
	case len(hits) > 1 && hits[0].ID == typed:
		return typed, nil
	case len(hits) > 1:
		return "", usagef("--snapshot %q: %d snapshots of %s match: %s; give more of the ID", typed, len(hits), name, snapshotList(hits, loc))
	case len(snaps) == 0:
		return "", notFoundError{fmt.Errorf("--snapshot %q: %w: %s has not been saved yet", typed, mirror.ErrNoSnapshot, name)}
	}
	return "", notFoundError{fmt.Errorf("--snapshot %q: %w of %s; saved: %s", typed, mirror.ErrNoSnapshot, name, snapshotList(snaps, loc))}
}

// latestSnapshot is the newest save for "latest" (ok false for anything
// else, and when there is no save: the caller says there is none).
func latestSnapshot(typed string, snaps []mirror.Snapshot) (string, bool) {
	if !strings.EqualFold(typed, "latest") || len(snaps) == 0 {
		return "", false
	}
	for _, s := range snaps {
		if s.Current {
			return s.ID, true
		}
	}
	return snaps[len(snaps)-1].ID, true
}

// snapshotDay reads a day typed alone (2026-11-29) as its local midnight.
func snapshotDay(typed string, loc *time.Location) (time.Time, bool) {
	t, err := time.ParseInLocation("2006-01-02", typed, loc)
	return t, err == nil
}

// snapshotTimeLayouts are the time forms --snapshot takes, with what they
// are precise to.
var snapshotTimeLayouts = []struct {
	layout    string
	precision time.Duration
}{
	{"2006-01-02T15:04:05", time.Second}, {"2006-01-02 15:04:05", time.Second},
	{"2006-01-02T15:04", time.Minute}, {"2006-01-02 15:04", time.Minute},
}

func parseSnapshotTime(s string, loc *time.Location) (time.Time, time.Duration, error) {
	if strings.HasSuffix(s, "Z") {
		s, loc = strings.TrimSuffix(s, "Z"), time.UTC
	}
	for _, l := range snapshotTimeLayouts {
		if t, err := time.ParseInLocation(l.layout, s, loc); err == nil {
			return t, l.precision, nil
		}
	}
	return time.Time{}, 0, errors.New("give an ID from 'rambar snapshots NAME' (or its start), latest, a day like 2026-11-29, or a time like 2026-11-29 12:00")
}

// snapshotList names snapshots for an error: ID and local time, newest first.
func snapshotList(snaps []mirror.Snapshot, loc *time.Location) string {
	var parts []string
	for i := len(snaps) - 1; i >= 0; i-- {
		parts = append(parts, fmt.Sprintf("%s (%s)", snaps[i].ID, snaps[i].Time.In(loc).Format("2006-01-02 15:04:05")))
	}
	return strings.Join(parts, ", ")
}
