package snapshot

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"rambar/tree"
)

// TestEntryCursor: an entryCursor finds what a binary search of the whole
// tree finds, for paths asked in path order, in any order, and paths the
// tree does not hold.
func TestEntryCursor(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var paths []string
	for range 2000 {
		paths = append(paths, fmt.Sprintf("d%d/e%d/f%d", r.Intn(20), r.Intn(20), r.Intn(50)))
	}
	paths = append(paths, ".")
	slices.SortFunc(paths, func(a, b string) int {
		switch {
		case tree.PathLess(a, b):
			return -1
		case tree.PathLess(b, a):
			return 1
		}
		return 0
	})
	paths = slices.Compact(paths)
	entries := make([]tree.Entry, len(paths))
	for i, p := range paths {
		entries[i].Path = p
	}
	var asks []string
	for range 3000 {
		if r.Intn(3) == 0 {
			asks = append(asks, fmt.Sprintf("d%d/e%d/g%d", r.Intn(20), r.Intn(20), r.Intn(5))) // not held
		} else {
			asks = append(asks, paths[r.Intn(len(paths))])
		}
	}
	sorted := slices.Clone(asks)
	slices.SortFunc(sorted, func(a, b string) int {
		if tree.PathLess(a, b) {
			return -1
		}
		if tree.PathLess(b, a) {
			return 1
		}
		return 0
	})
	cases := []struct {
		name string
		asks []string
	}{
		{"in path order", sorted},
		{"in any order", asks},
		{"nothing held", []string{"zz", "a", "d0/e0/f0/x"}},
	}
	for _, c := range cases {
		cur := &entryCursor{entries: entries}
		for _, p := range c.asks {
			if got, want := cur.index(p), entryIndex(entries, p); got != want {
				t.Fatalf("%s: %q found at %d, want %d", c.name, p, got, want)
			}
		}
	}
}
