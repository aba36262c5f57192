package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"rambar/i18n"
	"rambar/keeper"
)

// Snapshot IDs are UTC times to the microsecond (20261129T120000.004211Z),
// which nobody types. resolveSnapshot takes what a person would:
//
//   - "latest": the newest save;
//   - the ID, or any unique beginning of it: 20261129T1200, 20261129T120000Z
//     (the Z and the fraction may be left out);
//   - a day, in local time: 2026-11-29 (the latest save made that day;
//     the note says which, and how many that day had);
//   - the time as `snapshots` shows it, in local time to the minute or
//     second: "2026-11-29 12:00", 2026-11-29T12:00:05; with a trailing Z it
//     is UTC, and with a zone it is that zone ("2026-11-01 01:30 EST", as
//     `snapshots` shows a time the clocks passed twice).
//
// A local time names the snapshots saved when the clock showed it: after
// the clocks go back (daylight saving time ends) an hour's times come
// twice, and a time in it may name two snapshots an hour apart.
//
// It returns the one snapshot meant, and a note for the user when it
// picked one of several (a day). No match is "no such snapshot" (exit
// 4) naming the ones there are; several are a usage error: one line saying
// so, then their IDs, one a line.
func resolveSnapshot(name, typed string, snaps []keeper.Snapshot, loc *time.Location) (id, note string, err error) {
	typed = strings.TrimSpace(typed)
	var hits []keeper.Snapshot
	if id, ok := latestSnapshot(typed, snaps); ok {
		return id, "", nil
	}
	if day, ok := snapshotDay(typed, loc); ok {
		for _, s := range snaps {
			if !s.Time.Before(day) && s.Time.Before(day.AddDate(0, 0, 1)) {
				hits = append(hits, s)
			}
		}
		if len(hits) > 1 {
			last := hits[0]
			for _, s := range hits[1:] {
				if s.Time.After(last.Time) {
					last = s
				}
			}
			return last.ID, fmt.Sprintf("%s: the latest of %s's %d snapshots that day, %s (%s); 'rambar snapshots %s' lists the others",
				typed, name, len(hits), last.ID, snapshotTime(last.Time, loc), quoteName(name)), nil
		}
	} else if strings.ContainsAny(typed, "-:") {
		match, err := parseSnapshotTime(typed, loc)
		if err != nil {
			return "", "", usagef("--snapshot %q: %v", typed, err)
		}
		for _, s := range snaps {
			if match(s.Time) {
				hits = append(hits, s)
			}
		}
		if len(hits) > 1 {
			return "", "", listError{usagef("--snapshot %q: %s; give one of their IDs:", typed, sameTime(name, hits, loc)), snapshotLines(hits, loc)}
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
		return hits[0].ID, "", nil
	case len(hits) > 1 && hits[0].ID == typed:
		return typed, "", nil
	case len(hits) > 1:
		return "", "", usagef("--snapshot %q: %d snapshots of %s match: %s; give more of the ID", typed, len(hits), name, snapshotList(hits, loc))
	case len(snaps) == 0:
		return "", "", notFoundError{i18n.Errorf("--snapshot %q: %w: %s has not been saved yet", typed, keeper.ErrNoSnapshot, name)}
	}
	return "", "", notFoundError{i18n.Errorf("--snapshot %q: %w of %s; saved: %s", typed, keeper.ErrNoSnapshot, name, snapshotList(snaps, loc))}
}

// sameTime says why several snapshots match one time.
func sameTime(name string, hits []keeper.Snapshot, loc *time.Location) string {
	_, off := hits[0].Time.In(loc).Zone()
	for _, s := range hits[1:] {
		if _, o := s.Time.In(loc).Zone(); o != off {
			return fmt.Sprintf("%d snapshots of %s were saved at that local time, which came twice when the clocks went back", len(hits), name)
		}
	}
	return fmt.Sprintf("%d snapshots of %s were saved at that time", len(hits), name)
}

// latestSnapshot is the newest save for "latest" (ok false for anything
// else, and when there is no save: the caller says there is none).
func latestSnapshot(typed string, snaps []keeper.Snapshot) (string, bool) {
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
// are precise to; zoned ones name the zone.
var snapshotTimeLayouts = []struct {
	layout    string
	precision time.Duration
	zoned     bool
}{
	{"2006-01-02T15:04:05", time.Second, false}, {"2006-01-02 15:04:05", time.Second, false},
	{"2006-01-02T15:04", time.Minute, false}, {"2006-01-02 15:04", time.Minute, false},
	{"2006-01-02 15:04:05 MST", time.Second, true}, {"2006-01-02 15:04 MST", time.Minute, true},
	{"2006-01-02 15:04:05 -07:00", time.Second, true}, {"2006-01-02 15:04 -07:00", time.Minute, true},
}

// parseSnapshotTime reads a time as typed and returns what matches it: an
// instant when the zone is known (Z, a zone of loc's, an offset), else
// every instant loc's clock showed that time at.
func parseSnapshotTime(s string, loc *time.Location) (func(time.Time) bool, error) {
	if strings.HasSuffix(s, "Z") {
		s, loc = strings.TrimSuffix(s, "Z"), time.UTC
	}
	for _, l := range snapshotTimeLayouts {
		if l.zoned {
			at, err := time.ParseInLocation(l.layout, s, loc)
			if err != nil {
				continue
			}
			if name, _ := at.Zone(); strings.Contains(l.layout, "MST") && at.Location() != loc && name != "UTC" {
				return nil, fmt.Errorf("the zone %s is not one of %s's; give the ID, or the time without a zone", name, loc)
			}
			return func(t time.Time) bool { return t.Truncate(l.precision).Equal(at) }, nil
		}
		wall, err := time.ParseInLocation(l.layout, s, time.UTC)
		if err != nil {
			continue
		}
		return func(t time.Time) bool { return wallClock(t, loc).Truncate(l.precision).Equal(wall) }, nil
	}
	return nil, errors.New("give an ID from 'rambar snapshots NAME' (or its start), latest, a day like 2026-11-29, or a time like 2026-11-29 12:00")
}

// wallClock is what loc's clock showed at t, as a UTC time with those
// figures.
func wallClock(t time.Time, loc *time.Location) time.Time {
	w := t.In(loc)
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.UTC)
}

// repeatedTime reports whether loc's clock showed t's time twice (an hour
// the clocks went back over).
func repeatedTime(t time.Time, loc *time.Location) bool {
	_, off := t.In(loc).Zone()
	for _, near := range []time.Time{t.Add(-6 * time.Hour), t.Add(6 * time.Hour)} {
		_, o := near.In(loc).Zone()
		if o == off {
			continue
		}
		u := t.Add(time.Duration(off-o) * time.Second)
		if _, uo := u.In(loc).Zone(); uo == o && wallClock(u, loc).Equal(wallClock(t, loc)) {
			return true
		}
	}
	return false
}

// snapshotTime is t as `snapshots` shows it: local time to the second,
// with the zone when the clock showed that time twice.
func snapshotTime(t time.Time, loc *time.Location) string {
	if repeatedTime(t, loc) {
		return t.In(loc).Format("2006-01-02 15:04:05 MST")
	}
	return t.In(loc).Format("2006-01-02 15:04:05")
}

// snapshotList names snapshots for an error: ID and local time, newest first.
func snapshotList(snaps []keeper.Snapshot, loc *time.Location) string {
	var parts []string
	for i := len(snaps) - 1; i >= 0; i-- {
		parts = append(parts, fmt.Sprintf("%s (%s)", snaps[i].ID, snapshotTime(snaps[i].Time, loc)))
	}
	return strings.Join(parts, ", ")
}

// snapshotLines lists snapshots, oldest first: ID, then the local time
// with its zone and offset.
func snapshotLines(snaps []keeper.Snapshot, loc *time.Location) []string {
	var lines []string
	for _, s := range snaps {
		lines = append(lines, fmt.Sprintf("%s  %s", s.ID, s.Time.In(loc).Format("2006-01-02 15:04:05 MST (UTC-07:00)")))
	}
	return lines
}
