//go:build linux

package tree

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// vanishTmpfs mounts a tmpfs of its own for the test (unmounted at its
// end).
func vanishTmpfs(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts a real tmpfs: run it as root (CI does)")
	}
	dir := t.TempDir()
	if err := unix.Mount("rambar-test", dir, "tmpfs", 0, "size=64m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// makeFiles makes each of rels under root: a name ending in "/" a folder,
// else a file.
func makeFiles(t *testing.T, root string, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if rel[len(rel)-1] == '/' {
			err = os.MkdirAll(p, 0o755)
		} else {
			err = os.WriteFile(p, []byte(rel), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRescanOfAFolderThatVanished: a folder the change feed named (some
// of its names, or all) that is gone by the time a rescan reads it (it,
// its parent, replaced by a file or a symlink) is no error: every name
// the earlier scan had in it is gone, the named ones and the others, and
// it is not among the folders read.
func TestRescanOfAFolderThatVanished(t *testing.T) {
	tests := []struct {
		name   string
		change func(root string) error
		named  bool // the feed named f1 alone in the folder
	}{
		{name: "removed", change: func(root string) error { return os.RemoveAll(filepath.Join(root, "a/b/c")) }},
		{name: "removed, one name named", named: true, change: func(root string) error { return os.RemoveAll(filepath.Join(root, "a/b/c")) }},
		{name: "its parent removed", named: true, change: func(root string) error { return os.RemoveAll(filepath.Join(root, "a/b")) }},
		{name: "a file now", named: true, change: func(root string) error {
			if err := os.RemoveAll(filepath.Join(root, "a/b/c")); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(root, "a/b/c"), nil, 0o644)
		}},
		{name: "a symlink now", named: true, change: func(root string) error {
			if err := os.RemoveAll(filepath.Join(root, "a/b/c")); err != nil {
				return err
			}
			return os.Symlink("../d", filepath.Join(root, "a/b/c"))
		}},
		{name: "its parent a symlink now", change: func(root string) error {
			if err := os.RemoveAll(filepath.Join(root, "a/b")); err != nil {
				return err
			}
			return os.Symlink("x", filepath.Join(root, "a/b"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := vanishTmpfs(t)
			makeFiles(t, root, "a/b/c/f1", "a/b/c/f2", "a/b/c/deep/f3", "a/b/d/", "a/x/f4")
			prev, prevNot, err := ScanWith(root, 0, nil, Opts{})
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.change(root); err != nil {
				t.Fatal(err)
			}
			dirty := Dirty{Folders: map[string]struct{}{"a/b/c": {}}}
			if tt.named {
				dirty.Named = map[string]map[string]struct{}{"a/b/c": {"f1": {}}}
			}
			r, err := Rescan(root, prev, prevNot, dirty, Opts{})
			if err != nil {
				t.Fatalf("rescan: %v", err)
			}
			for _, p := range []string{"a/b/c/f1", "a/b/c/f2", "a/b/c/deep", "a/b/c/deep/f3"} {
				if !slices.Contains(r.Gone, p) {
					t.Errorf("%s is not gone: gone %q", p, r.Gone)
				}
				if slices.ContainsFunc(r.Items, func(it Scanned) bool { return it.Rel == p }) {
					t.Errorf("%s is still in the rescan", p)
				}
			}
			if r.Read["a/b/c"] {
				t.Error("the folder that vanished is among the folders read")
			}
			if !r.Reshaped {
				t.Error("paths went and the rescan is not reshaped")
			}
		})
	}
}

// TestScansWhileFolderTreesVanish: while whole folder trees are removed
// and made again without pause (git clean -fdX, then an install), full
// scans and rescans by the change feed never fail: a folder removed
// between its parent's listing and its own, or between its open and its
// read, is a path that vanished. Each rescan is checked against a full
// scan once the churn stops.
func TestScansWhileFolderTreesVanish(t *testing.T) {
	root := vanishTmpfs(t)
	install := func(pkg string) error {
		var mk func(dir string, depth int) error
		mk = func(dir string, depth int) error {
			if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(root, dir, "index.js"), []byte(dir), 0o644); err != nil {
				return err
			}
			for i := range min(depth, 3) {
				if err := mk(fmt.Sprintf("%s/node_modules/dep%d", dir, i), depth-1); err != nil {
					return err
				}
			}
			return nil
		}
		return mk(pkg, 4)
	}
	const packages = 3
	for p := range packages {
		if err := install(fmt.Sprintf("pkg%d", p)); err != nil {
			t.Fatal(err)
		}
	}
	f, prev, prevNot := followedScan(t, root)
	halt := churn(func(round int) error {
		nm := filepath.Join(root, fmt.Sprintf("pkg%d", round%packages), "node_modules")
		if err := os.RemoveAll(nm); err != nil {
			return err
		}
		return install(fmt.Sprintf("pkg%d", round%packages))
	})
	defer halt() // also when a check fails: the churn must end before the tmpfs goes
	scans, rescans := 0, 0
	for round := range 300 {
		if round%3 == 0 {
			if _, _, err := ScanWith(root, 0, nil, Opts{}); err != nil {
				t.Fatalf("round %d: a full scan failed: %v", round, err)
			}
			scans++
			continue
		}
		ch := f.Take()
		if ch.Lost {
			var err error
			if prev, prevNot, err = ScanWith(root, 0, nil, Opts{Feed: f}); err != nil {
				t.Fatalf("round %d: a full scan failed: %v", round, err)
			}
			scans++
			continue
		}
		r, err := Rescan(root, prev, prevNot, Dirty{Folders: ch.Folders, Linked: ch.Linked, Named: ch.Named}, Opts{Feed: f})
		if err != nil {
			t.Fatalf("round %d: a rescan failed: %v", round, err)
		}
		prev, prevNot = r.Items, r.NotKept
		rescans++
	}
	if err := halt(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d full scans and %d rescans while folder trees vanished", scans, rescans)
	if rescans == 0 {
		t.Fatal("no rescan: the feed lost every change")
	}
	// Once still, the rescan by what the feed names since is the full scan.
	r, want, _ := rescanTaken(t, "once still", f, root, prev, prevNot, Opts{})
	if got, _ := ctimeOnly(r.Items, want); !reflect.DeepEqual(noAtimes(got), noAtimes(want)) {
		t.Errorf("after the churn the rescan differs from a full scan: %s", diffScans(got, want))
	}
}
