package mirror

import (
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestScanMatchesAWalkOfTheTree: the worker scan of a random tree of
// folders and files lists exactly what filepath.WalkDir finds, in pathLess
// order, with a hint too small, right and too large.
func TestScanMatchesAWalkOfTheTree(t *testing.T) {
	root := t.TempDir()
	r := rand.New(rand.NewSource(7))
	dirs := []string{"."}
	for i := 0; i < 3000; i++ {
		parent := dirs[r.Intn(len(dirs))]
		name := fmt.Sprintf("%c%d", "aAb._-z"[r.Intn(7)], r.Intn(50))
		p := filepath.Join(parent, name)
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			continue
		}
		if r.Intn(4) == 0 {
			if err := os.Mkdir(filepath.Join(root, p), 0o755); err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, p)
		} else {
			write(t, root, p, name)
		}
	}
	want := walkedPaths(root)
	for _, hint := range []int{0, 10, len(want), 10 * len(want)} {
		items, _, err := scanAll(root, hint)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(items))
		for i, it := range items {
			got[i] = it.rel
		}
		if !slices.Equal(got, want) {
			t.Fatalf("hint %d: scan found %d paths, a walk %d; first differences: %v", hint, len(got), len(want), firstDiff(got, want))
		}
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %q vs %q", i, a[i], b[i])
		}
	}
	return "one is a prefix of the other"
}

// TestScanFailsCleanlyOnAFolderItCannotOpen: a folder deeper than PATH_MAX
// (made relative to descriptors) cannot be opened by path; the scan must
// say so, neither hang nor leave out the folder silently.
func TestScanFailsCleanlyOnAFolderItCannotOpen(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a", "x")
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("d", 200)
	for depth := 0; depth < 25; depth++ { // 25 * 201 bytes: past PATH_MAX
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = next
	}
	unix.Close(fd)
	t.Cleanup(func() { removeDeep(root, name) })
	if _, _, err := scanAll(root, 0); err == nil || !strings.Contains(err.Error(), "read folder") {
		t.Fatalf("scan of a tree past PATH_MAX = %v, want a read folder error", err)
	}
}

// removeDeep removes the chain of folders name/name/... under root that is
// too deep for a path.
func removeDeep(root, name string) {
	var fds []int
	fd, _ := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	for {
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			break
		}
		fds = append(fds, fd)
		fd = next
	}
	unix.Close(fd)
	for i := len(fds) - 1; i >= 0; i-- {
		unix.Unlinkat(fds[i], name, unix.AT_REMOVEDIR)
		unix.Close(fds[i])
	}
}

// matches, for the tests, reports whether items (in scan order) are exactly the indexed
// paths with the indexed identities: nothing added, removed or changed. A
// damaged index matches nothing.
func (x *index) matches(items []scanned) bool {
	m := x.match()
	for i := range items {
		m.See(&items[i])
	}
	return m.matched(len(items))
}

// TestScanMatchingTellsEveryChange: the match made during the scan says
// "same" for the tree the index was made of, and "changed" for each kind
// of difference, exactly as comparing the finished scan does.
func TestScanMatchingTellsEveryChange(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 300; i++ {
		write(t, root, fmt.Sprintf("d%d/s%d/f%d", i%5, i%7, i), strings.Repeat("x", i))
	}
	items, err := scan(root)
	if err != nil {
		t.Fatal(err)
	}
	b := indexOf("20260101T000000.000001Z", "d", items, nil)
	last := items[len(items)-1].rel
	for _, c := range []struct {
		name   string
		change func()
		index  []byte // instead of b
		same   bool
	}{
		{name: "unchanged", change: func() {}, same: true},
		// The damaged indexes first, while b is the tree's.
		{name: "index cut short", change: func() {}, index: b[:len(b)-3]},
		{name: "index with bytes after its end", change: func() {}, index: append(append([]byte{}, b...), 1)},
		{name: "file rewritten", change: func() { write(t, root, "d1/s1/f1", "other") }},
		{name: "file added", change: func() { write(t, root, "d2/new", "") }},
		{name: "file added after the last", change: func() { write(t, root, "zz", "") }},
		{name: "file removed", change: func() { os.Remove(filepath.Join(root, "d3/s3/f3")) }},
		{name: "last file removed", change: func() { os.Remove(filepath.Join(root, filepath.FromSlash(last))) }},
		{name: "file renamed", change: func() {
			os.Rename(filepath.Join(root, "d4/s4/f4"), filepath.Join(root, "d4/s4/f4x"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.change()
			raw := b
			if c.index != nil {
				raw = c.index
			}
			x, err := openIndex(raw)
			if err != nil {
				t.Fatal(err)
			}
			got, _, same, err := scanMatching(root, x.n, x, false)
			if err != nil {
				t.Fatal(err)
			}
			if same != c.same {
				t.Errorf("scanMatching same = %v, want %v", same, c.same)
			}
			if x2, _ := openIndex(raw); x2.matches(got) != same {
				t.Errorf("matches of the finished scan = %v, scanMatching %v", !same, same)
			}
			if !c.same && c.index == nil {
				// Back to the indexed tree for the next case.
				os.RemoveAll(root)
				os.Mkdir(root, 0o755)
				for _, it := range items[1:] {
					if it.id.Mode&unix.S_IFMT == unix.S_IFREG {
						write(t, root, it.rel, "")
					}
				}
				items2, _ := scan(root)
				items, b = items2, indexOf("20260101T000000.000001Z", "d", items2, nil)
				last = items[len(items)-1].rel
			}
		})
	}
}

// TestScanOfALargeFolderMatchesAWalk: a folder of many more entries than
// one getdents buffer holds (stat'ed by several goroutines while it is
// still being read), made in a shuffled order and with folders among its
// files, is listed exactly as a walk finds it, each path with its own
// identity; files removed while it is scanned are left out, never an
// error.
func TestScanOfALargeFolderMatchesAWalk(t *testing.T) {
	root := t.TempDir()
	r := rand.New(rand.NewSource(3))
	names := make([]string, 6000)
	for i := range names {
		names[i] = fmt.Sprintf("big/%s-%05d", strings.Repeat("n", r.Intn(40)), i)
	}
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	for i, n := range names {
		if i%500 == 0 {
			write(t, root, n+".d/inner", n)
			continue
		}
		write(t, root, n, n)
	}
	items, _, err := scanAll(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := walkedPaths(root)
	got := make([]string, len(items))
	for i, it := range items {
		got[i] = it.rel
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(root, it.rel), &st); err != nil || identOf(&st) != it.id {
			t.Fatalf("%s scanned as %+v, is %+v (%v)", it.rel, it.id, identOf(&st), err)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("scan found %d paths, a walk %d; first differences: %v", len(got), len(want), firstDiff(got, want))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i < len(names); i += 3 {
			os.Remove(filepath.Join(root, names[i]))
		}
	}()
	for range 5 {
		if _, _, err := scanAll(root, 0); err != nil {
			t.Fatalf("a scan while files are removed: %v", err)
		}
	}
	<-done
}

// walkedPaths is every path under root as filepath.WalkDir finds it, in
// pathLess order: what a scan must list.
func walkedPaths(root string) []string {
	var want []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		want = append(want, filepath.ToSlash(rel))
		return err
	})
	slices.SortFunc(want, func(a, b string) int {
		if pathLess(a, b) {
			return -1
		}
		return 1
	})
	return want
}
