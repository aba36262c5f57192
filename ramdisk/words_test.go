package ramdisk

import (
	"strings"
	"testing"
	"time"
)

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		noun string
		want string
	}{{0, "file", "0 files"}, {1, "file", "1 file"}, {2, "run", "2 runs"}, {-1, "file", "-1 files"}, {1234, "file", "1234 files"}} {
		if got := Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

func TestShortDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{45 * time.Second, "45 s"}, {10 * time.Minute, "10 min"}, {time.Hour, "1 h"}, {90 * time.Minute, "1 h 30 min"},
		{0, "0 s"}, {61 * time.Second, "1 min 1 s"}, {720 * time.Hour, "720 h"}, {1500 * time.Millisecond, "1.5 s"},
		{841 * time.Millisecond, "0.84 s"}, {12400 * time.Millisecond, "12 s"}, {time.Millisecond, "1 ms"},
		{400 * time.Microsecond, "under 1 ms"}, {9400 * time.Microsecond, "9 ms"},
	} {
		if got := ShortDuration(c.d); got != c.want {
			t.Errorf("ShortDuration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestAgo(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Hour, "just now"}, {0, "just now"}, {999 * time.Millisecond, "just now"}, {3 * time.Second, "3 s ago"},
		{59 * time.Second, "59 s ago"}, {5 * time.Minute, "5 min ago"}, {2 * time.Hour, "2 h ago"},
		{47 * time.Hour, "47 h ago"}, {49 * time.Hour, "2 days ago"}, {400 * time.Hour, "16 days ago"},
	} {
		if got := Ago(c.d); got != c.want {
			t.Errorf("Ago(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestWordsSingular: one snapshot, one file, in the phrases the CLI and the
// menu share.
func TestWordsSingular(t *testing.T) {
	if got := ContentsPhrase(Preset{Contents: Keep, Snapshots: 1}); got != "kept, 1 snapshot" {
		t.Errorf("ContentsPhrase = %q", got)
	}
	if got := ContentsPhrase(Preset{Contents: Keep, Snapshots: 3, SaveEvery: 600}); got != "kept, saved every 10 min, 3 snapshots" {
		t.Errorf("ContentsPhrase = %q", got)
	}
	if got := (Progress{Phase: "saving", FilesDone: 1, FilesTotal: 1}).String(); !strings.HasSuffix(got, ", 1 of 1 file)") {
		t.Errorf("Progress = %q", got)
	}
}

// TestContentLabelsPassZenity: no contents label holds an apostrophe, on
// which zenity --forms crashed (double free) in the New RAM Disk window.
func TestContentLabelsPassZenity(t *testing.T) {
	for _, c := range ContentChoices {
		if strings.ContainsAny(c.Label, "'|") {
			t.Errorf("label %q holds ' or |", c.Label)
		}
	}
}
