package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/internal/testtree"
	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// matches, for the tests, reports whether items (in scan order) are exactly the indexed
// paths with the indexed identities: nothing added, removed or changed. A
// damaged index matches nothing.
func matches(x *snapstore.Index, items []tree.Scanned) bool {
	m := x.Match()
	for i := range items {
		m.See(&items[i])
	}
	return m.Matched(len(items))
}

// TestScanMatchingTellsEveryChange: the match made during the scan says
// "same" for the tree the index was made of, and "changed" for each kind
// of difference, exactly as comparing the finished scan does.
func TestScanMatchingTellsEveryChange(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 300; i++ {
		testtree.Write(t, root, fmt.Sprintf("d%d/s%d/f%d", i%5, i%7, i), strings.Repeat("x", i))
	}
	items, err := tree.Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	b := snapstore.IndexOf("20260101T000000.000001Z", "d", items, nil)
	last := items[len(items)-1].Rel
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
		{name: "file rewritten", change: func() { testtree.Write(t, root, "d1/s1/f1", "other") }},
		{name: "file added", change: func() { testtree.Write(t, root, "d2/new", "") }},
		{name: "file added after the last", change: func() { testtree.Write(t, root, "zz", "") }},
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
			x, err := snapstore.OpenIndex(raw)
			if err != nil {
				t.Fatal(err)
			}
			got, _, same, err := ScanMatching(root, x.N, x, false)
			if err != nil {
				t.Fatal(err)
			}
			if same != c.same {
				t.Errorf("scanMatching same = %v, want %v", same, c.same)
			}
			if x2, _ := snapstore.OpenIndex(raw); matches(x2, got) != same {
				t.Errorf("matches of the finished scan = %v, scanMatching %v", !same, same)
			}
			if !c.same && c.index == nil {
				// Back to the indexed tree for the next case.
				os.RemoveAll(root)
				os.Mkdir(root, 0o755)
				for _, it := range items[1:] {
					if it.Id.Mode&unix.S_IFMT == unix.S_IFREG {
						testtree.Write(t, root, it.Rel, "")
					}
				}
				items2, _ := tree.Scan(root)
				items, b = items2, snapstore.IndexOf("20260101T000000.000001Z", "d", items2, nil)
				last = items[len(items)-1].Rel
			}
		})
	}
}
