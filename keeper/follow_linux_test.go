//go:build linux

package keeper

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSavesByTheFeedKeepEveryNameAtTheTop: a folder made at the top of a
// followed disk whose name is RAMBar's or the system's elsewhere (macOS's
// .fseventsd, the Caches folder of app caches) but contents here is saved
// by the next save by the feed, not left to the hourly walk.
func TestSavesByTheFeedKeepEveryNameAtTheTop(t *testing.T) {
	f := newFixture(t)
	_, v := f.kept("Top")
	fw, err := f.k.Follow(v)
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	if _, err := f.k.Save(f.ctx, v, SaveOptions{Follow: fw}); err != nil {
		t.Fatal(err)
	}
	write(t, v.MountPoint, ".fseventsd/kept", "the user's")
	r, err := f.k.Save(f.ctx, v, SaveOptions{Follow: fw})
	if err != nil {
		t.Fatal(err)
	}
	if !r.ByFeed || r.Unchanged {
		t.Fatalf("save %+v: want a change saved by the feed", r.Result)
	}
	out := t.TempDir()
	if _, err := f.k.store(mustState(t, f.k, "Top")).Restore(f.ctx, "", out, "", nil); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, ".fseventsd/kept")); err != nil || string(b) != "the user's" {
		t.Fatalf("the folder made at the top was not saved: %q, %v", b, err)
	}
}

// TestNextCountsTheQuietFromTheLastChange: a change made while the last
// save ran (a burst that ended before it did) is saved as soon as the
// disk has been quiet for ContinuousQuiet since it, not ContinuousQuiet
// after the save ends.
func TestNextCountsTheQuietFromTheLastChange(t *testing.T) {
	f := newFixture(t)
	_, v := f.kept("Quiet")
	fw, err := f.k.Follow(v)
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	if _, err := f.k.Save(f.ctx, v, SaveOptions{Follow: fw}); err != nil {
		t.Fatal(err)
	}
	write(t, v.MountPoint, "burst", "made while a save ran")
	time.Sleep(ContinuousQuiet + 200*time.Millisecond) // the save that ran meanwhile
	start := time.Now()
	if !fw.Next(f.ctx) {
		t.Fatal("Next ended")
	}
	if took := time.Since(start); took >= ContinuousQuiet {
		t.Fatalf("Next waited %v for a disk quiet since %v ago", took, took+ContinuousQuiet)
	}
}

// TestQuietLeft: the wait for a quiet disk, from its newest change.
func TestQuietLeft(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		last time.Time
		want time.Duration
	}{
		{"no change held", time.Time{}, ContinuousQuiet},
		{"just now", now, ContinuousQuiet},
		{"a clock step back", now.Add(time.Second), ContinuousQuiet},
		{"half a second ago", now.Add(-500 * time.Millisecond), ContinuousQuiet - 500*time.Millisecond},
		{"quiet long enough", now.Add(-ContinuousQuiet - time.Second), -time.Second},
	}
	for _, c := range cases {
		if got := quietLeft(c.last, now); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestNextIgnoresChangesASaveTook: the wake-up for a change a save took
// and committed asks for no other save; a change after it does.
func TestNextIgnoresChangesASaveTook(t *testing.T) {
	f := newFixture(t)
	_, v := f.kept("Took")
	fw, err := f.k.Follow(v)
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	if _, err := f.k.Save(f.ctx, v, SaveOptions{Follow: fw}); err != nil {
		t.Fatal(err)
	}
	write(t, v.MountPoint, "taken", "by the save that follows")
	if r, err := f.k.Save(f.ctx, v, SaveOptions{Follow: fw}); err != nil || r.Unchanged || !r.ByFeed {
		t.Fatalf("save by the feed: %+v, %v", r.Result, err)
	}
	ctx, cancel := context.WithTimeout(f.ctx, ContinuousQuiet+time.Second)
	defer cancel()
	if fw.Next(ctx) {
		t.Fatal("Next asked for a save of a change the last save committed")
	}
	write(t, v.MountPoint, "later", "made after it")
	ctx2, cancel2 := context.WithTimeout(f.ctx, time.Minute)
	defer cancel2()
	if !fw.Next(ctx2) {
		t.Fatal("Next did not ask for a save of a change made after the last save")
	}
}
