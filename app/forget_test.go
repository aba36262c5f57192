package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeptNameWithoutKeepAndForget: a kept name made without --keep says
// that saved contents exist and how to restore them, info tells the truth,
// eject neither saves nor refuses it, and forget deletes the saved
// contents only when asked and confirmed (issue 14 item 7).
func TestKeptNameWithoutKeepAndForget(t *testing.T) {
	c := newContentsApp(t)
	mp := filepath.Join(c.mem.Root, "Work")
	c.run(0, "create", "Work", "64M", "--keep")
	put(t, mp, "notes.txt", "one")
	c.run(0, "eject", "Work")
	store := filepath.Join(c.a.Paths.Data, "disks", "Work")
	if _, err := os.Stat(store); err != nil {
		t.Fatalf("no store: %v", err)
	}

	steps := []struct {
		name     string
		args     []string
		code     int
		ask      bool   // questions can be asked (a terminal)
		stdin    string // the answer
		want     []string
		absent   []string
		storeToo bool // the saved contents are still there afterwards
	}{
		{name: "create without --keep", args: []string{"create", "Work", "64M"}, storeToo: true,
			want: []string{"Saved contents of Work exist (last saved ", "'rambar restore Work' puts them on this disk, or eject it and make it with --keep"}},
		{name: "info", args: []string{"info", "Work"}, storeToo: true,
			want:   []string{"Contents:     not kept, but saved contents of Work exist", "'rambar forget Work' deletes them"},
			absent: []string{"kept (saved on eject", "Unsaved changes"}},
		{name: "info --json", args: []string{"info", "Work", "--json"}, storeToo: true, absent: []string{`"contents"`}},
		{name: "eject neither saves nor refuses", args: []string{"eject", "Work"}, storeToo: true,
			want: []string{"Ejected Work\n"}, absent: []string{"not saved", "Saved Work"}},
		{name: "forget not on a terminal needs --yes", args: []string{"forget", "Work"}, code: exitUsage, storeToo: true,
			want: []string{"add --yes"}},
		{name: "forget declined", args: []string{"forget", "Work"}, code: exitCancelled, ask: true, stdin: "n\n", storeToo: true,
			want: []string{"Forget the saved contents of Work (1 snapshot, ", " in " + store + ")? [y/N] ", "nothing deleted"}},
		{name: "forget refused while mounted and kept", args: []string{"create", "Work", "64M", "--keep"}, storeToo: true},
		{name: "…refused", args: []string{"forget", "Work", "--yes"}, code: exitRefused, storeToo: true,
			want: []string{"the disk of that name is mounted and kept; eject it first"}},
		{name: "eject it", args: []string{"eject", "Work"}, storeToo: true},
		{name: "forget confirmed", args: []string{"forget", "Work"}, ask: true, stdin: "y\n",
			want: []string{"Forgot the saved contents of Work (1 snapshot, "}},
		{name: "nothing left to forget", args: []string{"forget", "Work", "--yes"}, code: exitNotFound,
			want: []string{"forget Work: nothing is saved under that name"}},
		{name: "create again: no hint", args: []string{"create", "Work", "64M"}, absent: []string{"Saved contents"}},
		{name: "bad name", args: []string{"forget", "../x", "--yes"}, code: exitUsage},
	}
	for _, s := range steps {
		c.a.AskOK, c.a.Stdin = s.ask, strings.NewReader(s.stdin)
		c.run(s.code, s.args...)
		got := c.out.String() + c.err.String()
		for _, w := range s.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: output lacks %q:\n%s", s.name, w, got)
			}
		}
		for _, a := range s.absent {
			if strings.Contains(got, a) {
				t.Errorf("%s: output has %q:\n%s", s.name, a, got)
			}
		}
		if _, err := os.Stat(store); (err == nil) != s.storeToo {
			t.Errorf("%s: saved contents there: %v, want %v", s.name, err == nil, s.storeToo)
		}
	}
	var d diskJSON
	if err := json.Unmarshal([]byte(c.run(0, "info", "Work", "--json")), &d); err != nil || d.Contents != nil {
		t.Errorf("a plain Work: contents %+v (%v)", d.Contents, err)
	}
}
