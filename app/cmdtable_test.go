package main

import (
	"strings"
	"testing"

	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// everyCommand is every verb and sub-verb in the table, in help order.
func everyCommand() []*command {
	var cs []*command
	for _, c := range topLevel() {
		if !c.Hidden {
			cs = append(cs, c)
			cs = append(cs, c.Subs...)
		}
	}
	return cs
}

func helpEngine(t *testing.T) ramdisk.Engine {
	return ramdisktest.NewMem(t.TempDir(), ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 9 * ramdisk.GiB})
}

// TestHelpPages: `rambar VERB --help`, `-h` and `rambar help VERB` print the
// same page, exit 0, within 80 columns, with every flag, its description
// and the example; the page is golden.
func TestHelpPages(t *testing.T) {
	eng, home := helpEngine(t), t.TempDir()
	for _, c := range everyCommand() {
		path := strings.Fields(c.path())
		out, errOut, code := cliRun(t, eng, home, append(path, "--help")...)
		if code != exitOK || errOut != "" {
			t.Errorf("%s --help: exit %d, stderr %q", c.path(), code, errOut)
		}
		alts := [][]string{append(path, "-h"), append([]string{"help"}, path...)}
		for _, alias := range c.Aliases { // "preset remove" is "preset rm"
			alts = append(alts, append(append([]string(nil), path[:len(path)-1]...), alias, "--help"))
		}
		for _, args := range alts {
			o, e, code := cliRun(t, eng, home, args...)
			if o != out || e != "" || code != exitOK {
				t.Errorf("rambar %s: exit %d, stderr %q, and a page other than --help's:\n%s", strings.Join(args, " "), code, e, o)
			}
		}
		checkWidth(t, c.path(), out)
		flat := strings.Join(strings.Fields(out), " ")
		for _, f := range c.flags() {
			if !strings.Contains(out, "  "+f.label()) || !strings.Contains(flat, strings.Join(strings.Fields(f.doc(english())), " ")) {
				t.Errorf("%s --help lacks --%s or its description %q", c.path(), f.Name, f.Doc)
			}
		}
		for _, l := range strings.Split(c.Example, "\n") {
			if !strings.Contains(out, "  rambar "+l+"\n") {
				t.Errorf("%s --help lacks its example %q", c.path(), l)
			}
		}
		golden(t, "help-"+strings.Join(path, "-"), "$ rambar "+c.path()+" --help\n"+out, "\x00")
	}
	out, _, code := cliRun(t, eng, home, "help")
	checkWidth(t, "help", out)
	for _, alt := range []string{"-h", "--help"} {
		if o, _, c := cliRun(t, eng, home, alt); o != out || c != code {
			t.Errorf("rambar %s differs from rambar help:\n%s", alt, o)
		}
	}
}

func checkWidth(t *testing.T, what, out string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if n := displayWidth(l); n > helpWidth {
			t.Errorf("%s: a help line is %d columns wide: %q", what, n, l)
		}
	}
}

// TestTableComplete: every command says what it does, shows an example, and
// describes every flag; sub-verbs and flags are unique.
func TestTableComplete(t *testing.T) {
	for _, c := range everyCommand() {
		if c.Summary == "" || c.Example == "" || (c.Run == nil) == (len(c.Subs) == 0) {
			t.Errorf("%s: summary %q, example %q, run and sub-verbs %v/%d", c.path(), c.Summary, c.Example, c.Run != nil, len(c.Subs))
		}
		seen := map[string]bool{"help": true, "h": true}
		for _, f := range c.flags() {
			if f.Doc == "" || seen[f.Name] || (f.Kind != boolFlag) == (f.Value == "") {
				t.Errorf("%s --%s: doc %q, value %q, duplicate %v", c.path(), f.Name, f.Doc, f.Value, seen[f.Name])
			}
			seen[f.Name] = true
		}
		for _, f := range c.Flags {
			if f.Name == "json" {
				t.Errorf("%s declares its own --json; set JSON to offer the shared one", c.path())
			}
		}
	}
}

// TestUsageErrors: unknown verbs, sub-verbs and flags get the nearest one
// or the usage, in our words (golden); Go's flag wording never shows.
func TestUsageErrors(t *testing.T) {
	eng, home := helpEngine(t), t.TempDir()
	for _, s := range []struct {
		golden string
		args   []string
	}{
		{"unknown-suggest", []string{"craete", "Scratch", "4G"}},
		{"unknown-flag", []string{"create", "X", "1G", "--bogus"}},
		{"unknown-flag-near", []string{"create", "X", "1G", "--forse"}},
		{"unknown-sub", []string{"preset", "ad", "X", "1G"}},
		{"unknown-sub-none", []string{"login", "maybe"}},
		{"help-unknown", []string{"help", "preset", "mnt"}},
		{"create-missing-size", []string{"create", "X"}},
	} {
		out, errOut, code := cliRun(t, eng, home, s.args...)
		if code != exitUsage || out != "" {
			t.Errorf("%q: exit %d, stdout %q", s.args, code, out)
		}
		golden(t, s.golden, "$ rambar "+strings.Join(s.args, " ")+"\n"+errOut, "\x00")
	}
	// Every command, every way of getting a flag wrong.
	for _, c := range everyCommand() {
		path := strings.Fields(c.path())
		if len(c.Subs) > 0 {
			continue
		}
		bad := [][]string{{"--bogus", "--bogus"}, {"-bogus", "-bogus"}, {"--bogus=1", "--bogus"}, {"---x", "---x"}}
		for _, f := range c.flags() {
			if f.Kind == intFlag || f.Kind == durationFlag {
				bad = append(bad, []string{"--" + f.Name + "=x", "invalid value"})
			}
			if f.Kind == boolFlag {
				bad = append(bad, []string{"--" + f.Name + "=maybe", "true or false"})
			} else {
				bad = append(bad, []string{"--" + f.Name, "needs a value"})
			}
		}
		for _, b := range bad {
			args := append(append([]string(nil), path...), b[0])
			_, errOut, code := cliRun(t, eng, home, args...)
			if code != exitUsage || !strings.Contains(errOut, b[1]) || strings.Contains(errOut, "provided but not defined") ||
				strings.Count(errOut, "\n") != 1 || (b[0] == "--bogus" && strings.Contains(errOut, " -bogus")) {
				t.Errorf("rambar %s: exit %d, stderr %q; want %q", strings.Join(args, " "), code, errOut, b[1])
			}
		}
	}
}

// TestArgCounts: each command's declared argument count is checked before
// it runs.
func TestArgCounts(t *testing.T) {
	eng, home := helpEngine(t), t.TempDir()
	for _, c := range everyCommand() {
		min, max := c.argRange()
		if len(c.Subs) > 0 || c.Command || c.Name == "help" {
			continue
		}
		var tries [][]string
		if min > 0 {
			tries = append(tries, make([]string, min-1))
		}
		if max >= 0 {
			tries = append(tries, make([]string, max+1))
		}
		for _, pos := range tries {
			for i := range pos {
				pos[i] = "x"
			}
			args := append(strings.Fields(c.path()), pos...)
			_, errOut, code := cliRun(t, eng, home, args...)
			if code != exitUsage || !strings.Contains(errOut, "usage: rambar "+c.path()) {
				t.Errorf("rambar %q: exit %d, stderr %q", args, code, errOut)
			}
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"create", "list", "info", "eject", "reclaim", "preset", "save", "restore", "snapshots", "up", "login"}
	for _, c := range []struct{ word, want string }{
		{"craete", "create"}, {"lsit", "list"}, {"ejct", "eject"}, {"Create", "create"}, {"snap", "snapshots"},
		{"restor", "restore"}, {"frobnicate", ""}, {"x", ""}, {"re", ""}, {"presets", "preset"}, {"mnt", ""}, {"sve", "save"},
	} {
		if got := nearest(c.word, names); got != c.want {
			t.Errorf("nearest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	caches := []string{"yarn", "pnpm", "chrome", "firefox", "brew", "go", "npm", "tmpdir"}
	for _, c := range []struct{ word, want string }{{"gooo", "go"}, {"npmm", "npm"}, {"goo", "go"}, {"xyz", ""}} {
		if got := nearest(c.word, caches); got != c.want {
			t.Errorf("nearest(%q) among the caches = %q, want %q", c.word, got, c.want)
		}
	}
}

func TestWrap(t *testing.T) {
	got := wrap("one two three four", "> ", "  ", 9)
	if strings.Join(got, "|") != "> one two|  three|  four" {
		t.Errorf("wrap: %q", got)
	}
}
