package tree

import (
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"rambar/internal/testtree"

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
			testtree.Write(t, root, p, name)
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
			got[i] = it.Rel
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
	testtree.Write(t, root, "a", "x")
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
			testtree.Write(t, root, n+".d/inner", n)
			continue
		}
		testtree.Write(t, root, n, n)
	}
	items, _, err := scanAll(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := walkedPaths(root)
	got := make([]string, len(items))
	for i, it := range items {
		got[i] = it.Rel
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(root, it.Rel), &st); err != nil || IdentOf(&st) != it.Id {
			t.Fatalf("%s scanned as %+v, is %+v (%v)", it.Rel, it.Id, IdentOf(&st), err)
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

func TestPathLessPutsFoldersBeforeTheirContents(t *testing.T) {
	got := []string{"a.b", "a/b", ".", "a", "a-b/c", "a/b/c", "b", "a0"}
	sort.Slice(got, func(i, j int) bool { return PathLess(got[i], got[j]) })
	want := []string{".", "a", "a/b", "a/b/c", "a-b/c", "a.b", "a0", "b"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order = %v, want %v", got, want)
		}
	}
}

func TestScanOrderIsPathLess(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a/b/c", "a-b/c", "a.b", "a0", "b", "a/b-c", "a/bc/d"} {
		testtree.Write(t, root, p, "x")
	}
	items, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.Rel)
	}
	want := []string{".", "a", "a/b", "a/b/c", "a/b-c", "a/bc", "a/bc/d", "a-b", "a-b/c", "a.b", "a0", "b"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scan order %v, want %v", got, want)
	}
	if !sort.SliceIsSorted(got, func(i, j int) bool { return PathLess(got[i], got[j]) }) {
		t.Error("scan order is not pathLess order")
	}
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
		if PathLess(a, b) {
			return -1
		}
		return 1
	})
	return want
}

// TestScannedBecame: a path given the later version of its file that its
// copy found keeps a modification time the manifest accepts, the version's.
func TestScannedBecame(t *testing.T) {
	for _, c := range []struct {
		name      string
		sec, nsec int64 // as scanned
		to        int64 // the later version's MTime
		want      unix.Timespec
	}{
		{"the same second", 100, 5, 100*1e9 + 7, unix.Timespec{Sec: 100, Nsec: 7}},
		{"a later second", 100, 999_999_999, 101*1e9 + 3, unix.Timespec{Sec: 101, Nsec: 3}},
		{"seconds later", 100, 0, 160*1e9 + 999_999_999, unix.Timespec{Sec: 160, Nsec: 999_999_999}},
		{"an earlier time (set back)", 100, 5, 99*1e9 + 999_999_999, unix.Timespec{Sec: 99, Nsec: 999_999_999}},
		{"before 1970", 1, 0, -1*1e9 + 500, unix.Timespec{Sec: -1, Nsec: 500}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Scanned{Id: Ident{MTime: c.sec*1e9 + c.nsec}, mtimeSec: c.sec}
			s.Became(Ident{MTime: c.to, Size: 9})
			if got := s.mtime(); got != c.want || s.Id.Size != 9 {
				t.Errorf("mtime %+v, size %d; want %+v, 9", got, s.Id.Size, c.want)
			}
		})
	}
}
