package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGuesses: what a newcomer types first. Another tool's verb gets the
// command that does it; NAME and SIZE the other way round are taken the
// right way and said so; a disk is found by its mount point as by its name
// (info, eject, save, restore); a mistyped bench row gets the nearest and
// the rows as words; rows, cache keys and --caches complete.
func TestGuesses(t *testing.T) {
	p := newPresetApp(t)
	for _, c := range []struct{ verb, want string }{
		{"ls", "did you mean list?"},
		{"rm", "did you mean eject"},
		{"umount", "did you mean eject?"},
		{"mount", "did you mean create NAME SIZE"},
		{"status", "did you mean list"},
		{"craete", "did you mean create?"},
	} {
		if code, _, errOut := p.run(c.verb); code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("rambar %s: exit %d, %q; want %q", c.verb, code, errOut, c.want)
		}
	}

	code, out, errOut := p.run("create", "4G", "Swapped")
	if code != exitOK || !strings.Contains(out, "Created Swapped") || !strings.Contains(errOut, "taking Swapped as the name and 4G as the size") {
		t.Errorf("create 4G Swapped: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := p.run("preset", "add", "512M", "Later"); code != exitOK || !strings.Contains(out, "Added preset Later: 512M") {
		t.Errorf("preset add 512M Later: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := p.run("create", "1G", "2G"); code != exitOK || !strings.Contains(out, "Created 1G") || errOut != "" {
		t.Errorf("create 1G 2G (two sizes: the first is the name): exit %d\n%s%s", code, out, errOut)
	}

	mp := filepath.Join(p.mem.Root, "Swapped")
	for _, args := range [][]string{{"info", mp}, {"info", mp + "/"}, {"info", "--json", mp}} {
		if code, out, errOut := p.run(args...); code != exitOK || !strings.Contains(out, "Swapped") {
			t.Errorf("%s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	if code, _, errOut := p.run("info", filepath.Join(p.mem.Root, "Nope")); code != exitNotFound || !strings.Contains(errOut, "no RAM disk is mounted there") {
		t.Errorf("info of a path with no disk: exit %d, %q", code, errOut)
	}
	if code, out, errOut := p.run("eject", mp); code != exitOK || !strings.Contains(out, "Ejected Swapped") {
		t.Errorf("eject %s: exit %d\n%s%s", mp, code, out, errOut)
	}

	code, _, errOut = p.run("bench", "--rows", "seq-wirte,fsync")
	if code != exitUsage || !strings.Contains(errOut, "did you mean seq-write?") || !strings.Contains(errOut, "rows: seq-write, seq-read, fsync") || strings.Contains(errOut, "[") {
		t.Errorf("bench --rows seq-wirte: exit %d, %q", code, errOut)
	}
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"bench", "--rows", "seq-r"}, "seq-read"},
		{[]string{"bench", "--rows", "fsync,sq"}, "fsync,sqlite-default fsync,sqlite-full"},
		{[]string{"bench", "--rows=un"}, "--rows=untar"},
		{[]string{"cache", "on", "X", "np"}, "npm"},
		{[]string{"preset", "add", "P", "1G", "--caches", "go,np"}, "go,npm"},
		{[]string{"bench", "1"}, "1G"},
	} {
		_, out, errOut := p.run(append([]string{"__complete", "--"}, c.words...)...)
		if got := strings.Join(strings.Fields(out), " "); got != c.want {
			t.Errorf("complete %q: %q, want %q (%s)", c.words, got, c.want, errOut)
		}
	}
}
