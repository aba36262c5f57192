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
