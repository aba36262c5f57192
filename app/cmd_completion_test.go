package main

import (
	"strings"
	"testing"
)

// TestCompletions: commands, sub-commands, flags, file systems and names
// come from the table and the machine.
func TestCompletions(t *testing.T) {
	p := newPresetApp(t)
	p.run("create", "Scratch", "64M")
	p.run("create", "Build", "64M")
	p.run("preset", "add", "Cache", "64M")
	for _, c := range []struct {
		words []string
		want  string // the lines, joined by spaces
	}{
		{[]string{"cr"}, "create"},
		{[]string{"pre"}, "preset"},
		{[]string{"preset", "ad"}, "add"},
		{[]string{"login", ""}, "off on status"},
		{[]string{"create", "X", "1G", "--f"}, "--folders --force --fs"},
		{[]string{"cache", "o"}, "off on"},
		{[]string{"create", "X", "1G", "--fs", ""}, "apfs hfs+ tmpfs"}, // the in-memory engine's
		{[]string{"info", ""}, "Build Scratch"},
		{[]string{"eject", "Build", "S"}, "Scratch"},
		{[]string{"eject", "--force", ""}, "Build Scratch"},
		{[]string{"preset", "rm", ""}, "Cache"},
		{[]string{"create", ""}, ""},
		{[]string{"info", "Build", ""}, ""},
		{[]string{"nosuch", ""}, ""},
	} {
		_, out, errOut := p.run(append([]string{"__complete", "--"}, c.words...)...)
		if got := strings.Join(strings.Fields(out), " "); got != c.want {
			t.Errorf("%q: %q, want %q (%s)", c.words, got, c.want, errOut)
		}
	}
	if _, out, _ := p.run("__complete", "--", ""); strings.Contains(out, "__complete") || !strings.Contains(out, "create\n") {
		t.Errorf("first words:\n%s", out)
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		if code, out, _ := p.run("completion", sh); code != exitOK || !strings.Contains(out, "rambar __complete -- ") {
			t.Errorf("completion %s: exit %d\n%s", sh, code, out)
		}
	}
	if code, _, errOut := p.run("completion", "tcsh"); code != exitUsage || !strings.Contains(errOut, "use bash, zsh or fish") {
		t.Errorf("completion tcsh: exit %d, %s", code, errOut)
	}
}
