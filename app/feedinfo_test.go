package main

import (
	"strings"
	"testing"

	"rambar/changefeed"
)

// TestFeedPhrase: info and doctor say which feed follows a disk, the
// watches it holds, the folders past the budget, why not fanotify, and
// that it is lost.
func TestFeedPhrase(t *testing.T) {
	tests := []struct {
		name string
		st   changefeed.Status
		want []string
		not  []string
	}{
		{"fanotify", changefeed.Status{Kind: changefeed.KindFanotify},
			[]string{"fanotify: one mark on the disk's file system, no inotify watch"}, []string{"lost", "past"}},
		{"inotify within the budget", changefeed.Status{Kind: changefeed.KindInotify, Watches: 1, Budget: 24067, Why: "a filesystem mark needs root or CAP_SYS_ADMIN"},
			[]string{"inotify: 1 watch (all disks together hold at most 24067", "not fanotify: a filesystem mark needs root"}, []string{"past that", "lost"}},
		{"inotify past the budget", changefeed.Status{Kind: changefeed.KindInotify, Watches: 24067, Budget: 24067, Unwatched: 76034},
			[]string{"24067 watches", "76034 folders past that, read again by every save"}, []string{"marks"}},
		{"inotify and marks past the budget", changefeed.Status{Kind: changefeed.KindInotify, Watches: 24067, Budget: 24067, Marks: 76034},
			[]string{"24067 watches", "76034 folders past that followed by fanotify marks"}, []string{"read again"}},
		{"test mode, lost", changefeed.Status{Kind: changefeed.KindInotify, Mode: "fsevents", Lost: "the feed just started"},
			[]string{"(test mode: fsevents)", "lost: the feed just started (the next save walks the whole disk)"}, nil},
		{"FSEvents", changefeed.Status{Kind: changefeed.KindFSEvents}, []string{"FSEvents: one stream for the volume"}, []string{"watches"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := feedPhrase(english(), tt.st)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(got, w) {
					t.Errorf("%q says %q", got, w)
				}
			}
		})
	}
}
