//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLINamesCaseSensitive: on Linux names are case-sensitive, like the
// folders they are mounted at. ncWork and ncwork are two disks, each kept in
// its own store; every verb that takes a name finds only the disk of that
// exact name, and a name that matches none but for case is not found.
func TestCLINamesCaseSensitive(t *testing.T) {
	c := newCLI(t)
	for _, n := range []string{"ncWork", "ncwork"} {
		if out, errOut, code := c.run("create", n, "16M", "--keep"); code != 0 {
			t.Fatalf("create %s: exit %d\n%s%s", n, code, out, errOut)
		}
		t.Cleanup(func() { c.run("eject", "--force", "--no-save", n) })
		if err := os.WriteFile(filepath.Join(c.root, n, "who"), []byte(n), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if m := c.mounted(); len(m) != 2 {
		t.Fatalf("mounted %v, want both disks", m)
	}
	out, _, code := c.run("info", "ncwork")
	if code != 0 || !strings.Contains(out, c.root+"/ncwork\n") {
		t.Errorf("info ncwork: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"info", "NCWORK"}, {"eject", "NCWORK"}, {"save", "NcWork"}, {"restore", "NCWork"}} {
		if out, errOut, code := c.run(args...); code != exitNotFound {
			t.Errorf("%s: exit %d, want %d (no disk of that exact name)\n%s%s", strings.Join(args, " "), code, exitNotFound, out, errOut)
		}
	}
	if out, errOut, code := c.run("eject", "ncwork"); code != 0 || !strings.Contains(out, "Ejected ncwork") {
		t.Fatalf("eject ncwork: exit %d\n%s%s", code, out, errOut)
	}
	if m := c.mounted(); len(m) != 1 || m[0] != c.root+"/ncWork" {
		t.Fatalf("after eject ncwork, mounted %v; want ncWork alone", m)
	}
	if out, errOut, code := c.run("eject", "ncWork"); code != 0 {
		t.Fatalf("eject ncWork: exit %d\n%s%s", code, out, errOut)
	}
	// Each store holds its own disk's file.
	for _, n := range []string{"ncWork", "ncwork"} {
		if out, errOut, code := c.run("create", n, "16M", "--keep"); code != 0 {
			t.Fatalf("create %s again: exit %d\n%s%s", n, code, out, errOut)
		}
		if b, err := os.ReadFile(filepath.Join(c.root, n, "who")); err != nil || string(b) != n {
			t.Errorf("%s restored who = %q, %v; want %q", n, b, err, n)
		}
	}
}
