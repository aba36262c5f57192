package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAbsArgs: what the agent gets names the same paths from its own
// folder: a mount point given relative and a --mirror folder (with ~) are
// made absolute; names, flags and their other values are left as given.
func TestAbsArgs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	a := &App{Getenv: func(k string) string { return map[string]string{"HOME": "/home/ana"}[k] }}
	for _, c := range []struct{ verb, in, want string }{
		{"info", "Work --json", "Work --json"},
		{"info", "mnt/Work", dir + "/mnt/Work"},
		{"info", "/mnt/rambar/Work", "/mnt/rambar/Work"},
		{"keep", "Work --mirror site --create-folder", "Work --mirror " + dir + "/site --create-folder"},
		{"keep", "Work --mirror=~/site", "Work --mirror=/home/ana/site"},
		{"keep", "--snapshots 3 Work --save-every auto", "--snapshots 3 Work --save-every auto"},
		{"restore", "Work --snapshot 2026-11-29", "Work --snapshot 2026-11-29"},
		{"save", "-- ./Work Other", "-- " + dir + "/Work Other"},
	} {
		got := strings.Join(a.absArgs(commands[c.verb], strings.Fields(c.in)), " ")
		if got != c.want {
			t.Errorf("%s %s: sent %q, want %q", c.verb, c.in, got, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "site")); err == nil {
		t.Error("absArgs made a folder")
	}
}
