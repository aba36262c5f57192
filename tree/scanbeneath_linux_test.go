//go:build linux

package tree

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// withOpenat2 runs each test case with openat2, then with the walk one
// component at a time used where the kernel has none.
var withOpenat2 = []struct {
	name string
	walk bool
}{{name: "openat2"}, {name: "no openat2", walk: true}}

// useWalk makes OpenBeneath walk as on a kernel without openat2 until the
// test ends.
func useWalk(t *testing.T, walk bool) {
	t.Helper()
	was := noOpenat2.Load()
	noOpenat2.Store(walk)
	t.Cleanup(func() { noOpenat2.Store(was) })
}

// TestScansNeverReadThroughAFolderSwappedForASymlink: while folders of
// the disk (at three depths) are swapped, atomically and without pause,
// for a symlink to a folder outside the disk holding the same names and
// more, full scans and rescans never fail and never list anything
// outside the disk: a folder that is a symlink by the time it is opened
// is a path that changed, never read through.
func TestScansNeverReadThroughAFolderSwappedForASymlink(t *testing.T) {
	for _, tt := range withOpenat2 {
		t.Run(tt.name, func(t *testing.T) {
			useWalk(t, tt.walk)
			root, outside := vanishTmpfs(t), vanishTmpfs(t)
			swapped := []string{"a", "a/b", "a/b/c/d"}
			var files []string
			for _, d := range []string{"a/b/c/d/e", "a/x"} {
				for i := range 20 {
					files = append(files, fmt.Sprintf("%s/f%d", d, i))
				}
			}
			makeFiles(t, root, files...)
			// Outside: every folder the swapped ones lead to, with
			// names of its own that a read through a link would list.
			for _, d := range []string{".", "b", "b/c", "b/c/d", "b/c/d/e", "c/d/e", "d/e", "e", "x"} {
				makeFiles(t, outside, d+"/outside-only", d+"/e/outside-only", d+"/b/c/d/e/outside-only")
			}
			for _, s := range swapped {
				if err := os.Symlink(outside, filepath.Join(root, s+".link")); err != nil {
					t.Fatal(err)
				}
			}
			var swaps atomic.Int64
			halt := churn(func(i int) error {
				// The folder and the link trade names, and back.
				if err := swapWithLink(filepath.Join(root, swapped[i%len(swapped)])); err != nil {
					return err
				}
				swaps.Add(1)
				return nil
			})
			defer halt()
			prev, prevNot, err := ScanWith(root, 0, nil, Opts{})
			if err != nil {
				t.Fatal(err)
			}
			all := map[string]struct{}{}
			for _, d := range []string{".", "a", "a/b", "a/b/c", "a/b/c/d", "a/b/c/d/e", "a/x"} {
				all[d] = struct{}{}
			}
			outsideListed := func(items []Scanned) string {
				for _, it := range items {
					if strings.Contains(it.Rel, "outside-only") {
						return it.Rel
					}
				}
				return ""
			}
			scans, rescans := 0, 0
			for round := range 400 {
				if round%2 == 0 {
					items, _, err := ScanWith(root, 0, nil, Opts{})
					if err != nil {
						t.Fatalf("round %d: a full scan failed: %v", round, err)
					}
					if p := outsideListed(items); p != "" {
						t.Fatalf("round %d: a full scan listed %s, outside the disk", round, p)
					}
					scans++
					continue
				}
				r, err := Rescan(root, prev, prevNot, Dirty{Folders: all}, Opts{})
				if err != nil {
					t.Fatalf("round %d: a rescan failed: %v", round, err)
				}
				if p := outsideListed(r.Items); p != "" {
					t.Fatalf("round %d: a rescan listed %s, outside the disk", round, p)
				}
				prev, prevNot = r.Items, r.NotKept
				rescans++
			}
			if err := halt(); err != nil {
				t.Fatal(err)
			}
			if swaps.Load() < 100 {
				t.Fatalf("only %d swaps while %d scans and %d rescans ran", swaps.Load(), scans, rescans)
			}
			t.Logf("%d full scans and %d rescans through %d swaps", scans, rescans, swaps.Load())
			// Once still, the scans list the disk whole again.
			want, _, err := ScanWith(root, 0, nil, Opts{})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if !slices.ContainsFunc(want, func(it Scanned) bool { return it.Rel == f }) {
					t.Errorf("%s is missing from a scan of the still disk", f)
				}
			}
			r, err := Rescan(root, prev, prevNot, Dirty{Folders: all}, Opts{})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := ctimeOnly(r.Items, want); !reflect.DeepEqual(noAtimes(got), noAtimes(want)) {
				t.Errorf("once still, the rescan differs from a full scan: %s", diffScans(got, want))
			}
		})
	}
}

// TestScansNeverEnterAMountInsideTheDisk: a file system mounted inside
// the disk (another tmpfs, a bind mount of a folder outside, a bind
// mount of a folder or a file of the disk itself) is never entered by a
// scan or a rescan, with openat2 or without: nothing beneath it is
// listed, nor it, and its mount point is named not kept, once.
func TestScansNeverEnterAMountInsideTheDisk(t *testing.T) {
	for _, o := range withOpenat2 {
		for _, tt := range []struct {
			name  string
			at    string
			mount func(t *testing.T, root, at string)
		}{
			{name: "a tmpfs", at: "a/m", mount: mountTmpfsAt},
			{name: "a tmpfs at the top", at: "m", mount: mountTmpfsAt},
			{name: "a folder outside, bound", at: "a/m", mount: func(t *testing.T, _, at string) {
				out := vanishTmpfs(t)
				makeFiles(t, out, "inside-mount/f", "g")
				bindAt(t, out, at)
			}},
			{name: "a folder of the disk, bound", at: "a/m", mount: func(t *testing.T, root, at string) {
				makeFiles(t, root, "src/inside-mount/f")
				bindAt(t, filepath.Join(root, "src/inside-mount"), at)
			}},
			{name: "a file of the disk, bound", at: "a/bf", mount: func(t *testing.T, root, at string) {
				makeFiles(t, root, "src/file", "a/bf")
				bindAt(t, filepath.Join(root, "src/file"), at)
			}},
		} {
			t.Run(o.name+", "+tt.name, func(t *testing.T) {
				useWalk(t, o.walk)
				root := vanishTmpfs(t)
				makeFiles(t, root, "a/f", "a/m/", "b/g")
				tt.mount(t, root, filepath.Join(root, tt.at))
				items, notKept, err := ScanWith(root, 0, nil, Opts{})
				if err != nil {
					t.Fatal(err)
				}
				checkMountSkipped(t, "scan", items, notKept, tt.at)
				for _, dirty := range []map[string]struct{}{
					{parentOf(tt.at): {}},
					{parentOf(tt.at): {}, tt.at: {}},
					{tt.at: {}},
				} {
					for _, named := range []bool{false, true} {
						d := Dirty{Folders: dirty}
						if named {
							_, name := SplitRel(tt.at)
							d.Named = map[string]map[string]struct{}{parentOf(tt.at): {name: {}}}
						}
						what := fmt.Sprintf("rescan of %v (named: %v)", SortedKeys(dirty), named)
						r, err := Rescan(root, items, notKept, d, Opts{})
						if err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						checkMountSkipped(t, what, r.Items, r.NotKept, tt.at)
						if got, _ := ctimeOnly(r.Items, items); !reflect.DeepEqual(noAtimes(got), noAtimes(items)) {
							t.Errorf("%s differs from the scan: %s", what, diffScans(got, items))
						}
					}
				}
			})
		}
	}
}

// checkMountSkipped checks a scan's items and skipped paths with a mount
// point at at.
func checkMountSkipped(t *testing.T, what string, items []Scanned, notKept []NotKept, at string) {
	t.Helper()
	for _, it := range items {
		if it.Rel == at || strings.HasPrefix(it.Rel, at+"/") {
			t.Errorf("%s: %s is listed, the mount point %s or beneath it", what, it.Rel, at)
		}
	}
	if !slices.ContainsFunc(items, func(it Scanned) bool { return it.Rel == "a/f" }) {
		t.Errorf("%s: a/f, beside the mount, is not listed", what)
	}
	if want := []NotKept{{Path: at, Why: whyMount}}; !reflect.DeepEqual(notKept, want) {
		t.Errorf("%s: not kept %v, want %v", what, notKept, want)
	}
}

// mountTmpfsAt mounts a tmpfs holding files at at (unmounted at the
// test's end, before the disk).
func mountTmpfsAt(t *testing.T, _, at string) {
	t.Helper()
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("rambar-test-inner", at, "tmpfs", 0, "size=4m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(at, unix.MNT_DETACH) })
	makeFiles(t, at, "inside-mount/f", "g")
}

// bindAt bind-mounts the folder from at at (unmounted at the test's end).
func bindAt(t *testing.T, from, at string) {
	t.Helper()
	if err := unix.Mount(from, at, "", unix.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(at, unix.MNT_DETACH) })
}
