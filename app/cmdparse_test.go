package main

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse: any command line either parses or gives a usage error in our
// words; it never panics and never shows Go's flag wording.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"create Scratch 4G --fs hfs+", "create --fs=tmpfs X 1G --json", "create X -1G", "eject --all --force",
		"preset add X 1G --keep --save-every 10m", "try --runs 3 -- make -j4", "bench --rows=a,b -- --x",
		"create X 1G --snapshots=x", "create --", "--", "-", "---x", "create X 1G --bogus=", "help preset add",
		"restore X --snapshot", "login status --json=false", "create X 1G --hidden=maybe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, rest, err := resolve(strings.Split(line, " ")) // never empty
		if err == nil {
			_, _, err = parse(c, rest)
		}
		var ue *usageError
		if err != nil && !errors.As(err, &ue) {
			t.Fatalf("%q: %v is not a usage error", line, err)
		}
		if err != nil && strings.Contains(err.Error(), "provided but not defined") {
			t.Fatalf("%q: Go's flag wording: %v", line, err)
		}
	})
}
