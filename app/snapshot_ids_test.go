package main

import (
	"errors"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // America/New_York wherever the tests run

	"rambar/keeper"
	"rambar/ramdisk"
)

func TestResolveSnapshot(t *testing.T) {
	loc := time.FixedZone("CET", 3600)
	at := func(s string) time.Time { t, _ := time.Parse("20060102T150405.000000Z", s); return t }
	var snaps []keeper.Snapshot
	for _, id := range []string{"20261129T115000.123456Z", "20261129T120000.004211Z", "20261129T120000.900000Z", "20261130T080000.000001Z"} {
		snaps = append(snaps, keeper.Snapshot{ID: id, Time: at(id)})
	}
	for _, c := range []struct {
		typed, want string
		code        int // exit code of the error, 0 for none
		says        string
	}{
		{typed: "20261129T115000.123456Z", want: "20261129T115000.123456Z"},
		{typed: "20261129T1150", want: "20261129T115000.123456Z"},
		{typed: "20261129T115000Z", want: "20261129T115000.123456Z"},
		{typed: "20261130", want: "20261130T080000.000001Z"},
		{typed: "2026-11-29 12:50", want: "20261129T115000.123456Z"}, // local time, as `snapshots` shows it
		{typed: "2026-11-29T12:50:00", want: "20261129T115000.123456Z"},
		{typed: "2026-11-29T11:50Z", want: "20261129T115000.123456Z"},
		{typed: " 20261130T08 ", want: "20261130T080000.000001Z"},
		{typed: "20261129T120000Z", code: exitUsage, says: "2 snapshots of Work match: 20261129T120000.900000Z"},
		{typed: "2026-11-29 13:00", code: exitUsage, says: "2 snapshots of Work were saved at that time; give one of their IDs:"},
		{typed: "2026-11-29 12:50 CET", want: "20261129T115000.123456Z"},
		{typed: "2026-11-29 12:50 +01:00", want: "20261129T115000.123456Z"},
		{typed: "2026-11-29 11:50 UTC", want: "20261129T115000.123456Z"},
		{typed: "2026-11-29 12:50 PDT", code: exitUsage, says: "the zone PDT is not one of CET's"},
		{typed: "20251129T1150", code: exitNotFound, says: "no such snapshot of Work; saved: 20261130T080000.000001Z (2026-11-30 09:00:00), "},
		{typed: "../../etc", code: exitNotFound, says: "no such snapshot"},
		{typed: "2026-11-31 25:00", code: exitUsage, says: "or a time like 2026-11-29 12:00"},
		{typed: "Z", code: exitNotFound, says: "no such snapshot"},
		{typed: "latest", want: "20261130T080000.000001Z"},
		{typed: "LATEST", want: "20261130T080000.000001Z"},
		{typed: "2026-11-30", want: "20261130T080000.000001Z"}, // the one save that local day
		{typed: "2026-11-29", want: "20261129T120000.900000Z"}, // the latest of three that day
		{typed: "2026-12-01", code: exitNotFound, says: "no such snapshot of Work"},
	} {
		got, _, err := resolveSnapshot("Work", c.typed, snaps, loc)
		switch {
		case c.code == 0 && (err != nil || got != c.want):
			t.Errorf("%q: %q, %v; want %q", c.typed, got, err, c.want)
		case c.code != 0 && (err == nil || exitCode(err) != c.code || !strings.Contains(err.Error(), c.says)):
			t.Errorf("%q: %q, %v; want exit %d saying %q", c.typed, got, err, c.code, c.says)
		}
	}
	if _, note, _ := resolveSnapshot("Work", "2026-11-29", snaps, loc); note != "2026-11-29: the latest of Work's 3 snapshots that day, 20261129T120000.900000Z (2026-11-29 13:00:00); 'rambar snapshots Work' lists the others" {
		t.Errorf("a day of several snapshots says %q", note)
	}
	// A day is a local one: 00:30 CET on the 30th is the 29th in UTC.
	late := []keeper.Snapshot{{ID: "20261129T233000.000000Z", Time: at("20261129T233000.000000Z")}}
	if got, _, err := resolveSnapshot("Work", "2026-11-30", late, loc); err != nil || got != late[0].ID {
		t.Errorf("a local day: %q, %v; want the save made at 00:30 local on it", got, err)
	}
	if _, _, err := resolveSnapshot("New", "latest", nil, loc); !errors.Is(err, ramdisk.ErrNotFound) {
		t.Errorf("latest with no saves: %v, want not found", err)
	}
	_, _, err := resolveSnapshot("New", "2026", nil, loc)
	if !errors.Is(err, ramdisk.ErrNotFound) || !strings.Contains(err.Error(), "New has not been saved yet") {
		t.Errorf("no snapshots: %v", err)
	}
}

// TestResolveSnapshotWhenClocksGoBack: in America/New_York the clocks go
// back at 2:00 on 2026-11-01, so 1:30 comes twice: two snapshots an hour
// apart in UTC (05:30Z and 06:30Z) were both saved at 01:30. That time is
// refused, one line saying why, then the IDs; with its zone (as
// `snapshots` shows it) or its ID each is found; other times are as before.
func TestResolveSnapshotWhenClocksGoBack(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time { t, _ := time.Parse("20060102T150405.000000Z", s); return t }
	ids := []string{"20261101T043000.000000Z", "20261101T053000.000000Z", "20261101T063000.000000Z", "20261101T073000.000000Z"}
	var snaps []keeper.Snapshot
	for _, id := range ids {
		snaps = append(snaps, keeper.Snapshot{ID: id, Time: at(id)})
	}
	_, _, err = resolveSnapshot("Work", "2026-11-01 01:30", snaps, ny)
	var stderr strings.Builder
	a := &App{Stderr: &stderr}
	if code := a.exit(err); code != exitUsage || stderr.String() != `rambar: --snapshot "2026-11-01 01:30": 2 snapshots of Work were saved at that local time, `+
		"which came twice when the clocks went back; give one of their IDs:\n"+
		"  "+ids[1]+"  2026-11-01 01:30:00 EDT (UTC-04:00)\n  "+ids[2]+"  2026-11-01 01:30:00 EST (UTC-05:00)\n" {
		t.Errorf("the repeated 01:30: exit %d, said:\n%s", code, stderr.String())
	}
	for typed, want := range map[string]string{
		"2026-11-01 01:30 EDT":       ids[1],
		"2026-11-01 01:30:00 EST":    ids[2],
		"2026-11-01 01:30:00 -05:00": ids[2],
		"2026-11-01T05:30Z":          ids[1],
		"20261101T0630":              ids[2],
		"2026-11-01 00:30":           ids[0], // EDT only
		"2026-11-01 02:30":           ids[3], // EST only
	} {
		if got, _, err := resolveSnapshot("Work", typed, snaps, ny); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", typed, got, err, want)
		}
	}
	for i, want := range []string{"2026-11-01 00:30:00", "2026-11-01 01:30:00 EDT", "2026-11-01 01:30:00 EST", "2026-11-01 02:30:00"} {
		if got := snapshotTime(snaps[i].Time, ny); got != want {
			t.Errorf("%s shown as %q, want %q", ids[i], got, want)
		}
	}
	// The hour the clocks skip in spring (2026-03-08 02:30) names nothing.
	spring := []keeper.Snapshot{{ID: "20260308T073000.000000Z", Time: at("20260308T073000.000000Z")}}
	if _, _, err := resolveSnapshot("Work", "2026-03-08 02:30", spring, ny); exitCode(err) != exitNotFound {
		t.Errorf("a time the clocks skipped: %v", err)
	}
}

// TestRestoreByShortIDMarksDisk: a snapshot is restored by the start of its
// ID, and `snapshots` then marks it as the state on the disk, the newest
// save still as the latest.
func TestRestoreByShortIDMarksDisk(t *testing.T) {
	c := newContentsApp(t)
	c.run(0, "create", "Work", "64M", "--keep")
	mp := c.mem.Root + "/Work"
	var ids []string
	for _, s := range []string{"one", "two"} {
		put(t, mp, "notes.txt", s)
		c.run(0, "save", "Work")
		ids = append(ids, *c.info("Work").Contents.LastSnapshot)
	}
	n := 0 // the shortest start of the older ID that is not the newer one's
	for ids[0][n] == ids[1][n] {
		n++
	}
	c.run(0, "restore", "Work", "--snapshot", ids[0][:n+1], "--force")
	if got := read(t, mp+"/notes.txt"); got != "one" {
		t.Errorf("restored %q", got)
	}
	out := c.run(0, "snapshots", "Work")
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, ids[0]) && !strings.HasSuffix(l, "  on the disk now"):
			t.Errorf("restored snapshot not marked: %q", l)
		case strings.HasPrefix(l, ids[1]) && !strings.HasSuffix(l, "  latest"):
			t.Errorf("latest save not marked: %q", l)
		}
	}
	c.run(exitNotFound, "restore", "Work", "--snapshot", "19990101", "--force")
	if !strings.Contains(c.err.String(), ids[1]) || !strings.Contains(c.err.String(), ids[0]) {
		t.Errorf("a miss does not list the snapshots: %q", c.err.String())
	}
}

// TestRestoreOverItsOwnSnapshot: restoring the snapshot a disk holds
// exactly needs no --force and changes nothing; one that differs is still
// refused without it. info's last save is the snapshot the disk holds, with
// that save's time, not a later save that found nothing changed.
func TestRestoreOverItsOwnSnapshot(t *testing.T) {
	c := newContentsApp(t)
	c.run(0, "create", "Work", "64M", "--keep")
	mp := c.mem.Root + "/Work"
	var ids []string
	for _, s := range []string{"one", "two"} {
		put(t, mp, "notes.txt", s)
		c.run(0, "save", "Work")
		ids = append(ids, *c.info("Work").Contents.LastSnapshot)
	}
	saved := *c.info("Work").Contents.LastSave
	time.Sleep(1100 * time.Millisecond)
	if out := c.run(0, "save", "Work"); !strings.Contains(out, "nothing changed") {
		t.Fatalf("a save with nothing changed said %q", out)
	}
	if in := c.info("Work").Contents; *in.LastSnapshot != ids[1] || !in.LastSave.Equal(saved) {
		t.Errorf("after a save that changed nothing, info says last save %v (%s); want %v (%s), the snapshot's own time", in.LastSave, *in.LastSnapshot, saved, ids[1])
	}
	if out := c.run(0, "restore", "Work", "--snapshot", "latest"); !strings.Contains(out, "already holds "+ids[1]+" exactly") {
		t.Errorf("restore --snapshot latest over itself: %q", out)
	}
	c.run(0, "restore", "Work")
	c.run(exitRefused, "restore", "Work", "--snapshot", ids[0])
	if got := read(t, mp+"/notes.txt"); got != "two" {
		t.Errorf("a refused restore changed the disk: %q", got)
	}
	c.run(0, "restore", "Work", "--snapshot", ids[0], "--force")
	if out := c.run(0, "restore", "Work", "--snapshot", ids[0]); !strings.Contains(out, "already holds "+ids[0]) {
		t.Errorf("restore of the older snapshot the disk holds: %q", out)
	}
	if in := c.info("Work").Contents; *in.LastSnapshot != ids[0] {
		t.Errorf("after restoring %s, info's last snapshot is %s", ids[0], *in.LastSnapshot)
	}
	put(t, mp, "notes.txt", "three")
	c.run(exitRefused, "restore", "Work", "--snapshot", ids[0])
	if got := read(t, mp+"/notes.txt"); got != "three" {
		t.Errorf("a refused restore over a changed file changed it: %q", got)
	}
}
