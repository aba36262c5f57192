package snapstore

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"rambar/tree"
)

// spliceTree is a tree of n files in folders of 10, every 7th file a
// second name of the one before, and one watched file.
func spliceTree(n int) ([]tree.Scanned, map[string]ContentSum) {
	items := []tree.Scanned{{Rel: ".", Id: tree.Ident{Ino: 1, Mode: 0o40755}}}
	for i := range n {
		if i%10 == 0 {
			items = append(items, tree.Scanned{Rel: fmt.Sprintf("d%04d", i/10), Id: tree.Ident{Ino: uint64(1000000 + i), Mode: 0o40755, CTime: int64(i) * 1e6}})
		}
		it := tree.Scanned{Rel: fmt.Sprintf("d%04d/f%04d", i/10, i), Id: tree.Ident{Ino: uint64(100 + i), CTime: int64(i) * 1e6, MTime: int64(i) * 1e6, Size: int64(i), Mode: 0o100644}}
		if i%7 == 6 && i%10 != 0 {
			prev := &items[len(items)-1]
			it.Id = prev.Id
			prev.HardLink = 0
			it.HardLink = int32(len(items))
		}
		items = append(items, it)
	}
	return items, map[string]ContentSum{items[5].Rel: {1, 2, 3}}
}

// change is one change to a tree, as a rescan would find it: the new
// items and each one's place in the old (-1: new).
type change func(items []tree.Scanned, sums map[string]ContentSum, r *rand.Rand) ([]tree.Scanned, []int32, map[string]ContentSum)

// identity is items unchanged, with their places.
func identity(items []tree.Scanned) ([]tree.Scanned, []int32) {
	from := make([]int32, len(items))
	for i := range from {
		from[i] = int32(i)
	}
	return slices.Clone(items), from
}

var changes = map[string]change{
	"none": func(items []tree.Scanned, sums map[string]ContentSum, _ *rand.Rand) ([]tree.Scanned, []int32, map[string]ContentSum) {
		out, from := identity(items)
		return out, from, sums
	},
	"written": func(items []tree.Scanned, sums map[string]ContentSum, r *rand.Rand) ([]tree.Scanned, []int32, map[string]ContentSum) {
		out, from := identity(items)
		for range 10 {
			k := 1 + r.Intn(len(out)-1)
			out[k].Id.MTime += 7
			out[k].Id.Size++
		}
		return out, from, sums
	},
	"top": func(items []tree.Scanned, sums map[string]ContentSum, _ *rand.Rand) ([]tree.Scanned, []int32, map[string]ContentSum) {
		out, from := identity(items)
		out[0].Id.MTime++
		return out, from, sums
	},
	"removed": func(items []tree.Scanned, sums map[string]ContentSum, r *rand.Rand) ([]tree.Scanned, []int32, map[string]ContentSum) {
		out, from := identity(items)
		k := 2 + r.Intn(len(out)-3)
		if out[k].HardLink != 0 || k+1 < len(out) && out[k+1].HardLink != 0 {
			return out, from, sums // keeps the links simple: another round removes another
		}
		for i := range out {
			if out[i].HardLink > int32(k+1) {
				out[i].HardLink--
			}
		}
		return slices.Delete(out, k, k+1), slices.Delete(from, k, k+1), sums
	},
	"added": func(items []tree.Scanned, sums map[string]ContentSum, r *rand.Rand) ([]tree.Scanned, []int32, map[string]ContentSum) {
		out, from := identity(items)
		k := 1 + r.Intn(len(out)-1)
		if out[k-1].Id.Mode&0o170000 != 0o100000 || k < len(out) && out[k].Rel == out[k-1].Rel+"n" {
			return out, from, sums // a name after a file's sorts right after it
		}
		it := tree.Scanned{Rel: out[k-1].Rel + "n", Id: tree.Ident{Ino: uint64(r.Int63()), Mode: 0o100600}}
		for i := range out {
			if out[i].HardLink > int32(k) {
				out[i].HardLink++
			}
		}
		return slices.Insert(out, k, it), slices.Insert(from, k, -1), sums
	},
	"relinked": func(items []tree.Scanned, sums map[string]ContentSum, _ *rand.Rand) ([]tree.Scanned, []int32, map[string]ContentSum) {
		out, from := identity(items)
		for i := range out {
			if out[i].HardLink > 0 {
				out[i].HardLink = 0 // split: the same identity, no target
				break
			}
		}
		return out, from, sums
	},
	"resummed": func(items []tree.Scanned, sums map[string]ContentSum, r *rand.Rand) ([]tree.Scanned, []int32, map[string]ContentSum) {
		out, from := identity(items)
		n := map[string]ContentSum{}
		for p, c := range sums {
			c[0]++
			n[p] = c
		}
		n[out[1+r.Intn(len(out)-1)].Rel] = ContentSum{9}
		return out, from, n
	},
	"unwatched": func(items []tree.Scanned, _ map[string]ContentSum, _ *rand.Rand) ([]tree.Scanned, []int32, map[string]ContentSum) {
		out, from := identity(items)
		return out, from, nil
	},
	"misplaced": func(items []tree.Scanned, sums map[string]ContentSum, _ *rand.Rand) ([]tree.Scanned, []int32, map[string]ContentSum) {
		out, from := identity(items)
		from[len(from)/2], from[len(from)/2+1] = from[len(from)/2+1], from[len(from)/2]
		return out, from, sums
	},
}

func TestIndexFromIsIndexOf(t *testing.T) {
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range changes {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			items, sums := spliceTree(500)
			_, base := IndexFrom("s0", "disk", items, sums, nil, nil, nil)
			r := rand.New(rand.NewSource(int64(len(name))))
			// Each change on the one before: the base each save leaves.
			for round := range 30 {
				var from []int32
				items, from, sums = changes[name](base.Items, sums, r)
				id := fmt.Sprintf("s%d", round+1)
				got, next := IndexFrom(id, "disk", items, sums, base, from, nil)
				want, fresh := IndexFrom(id, "disk", items, sums, nil, nil, nil)
				if !bytes.Equal(got, want) {
					t.Fatalf("round %d: the spliced index differs from the encoded one", round)
				}
				if got, _ := IndexFrom(id, "disk", items, sums, base, from, keptOf(items, from, base.Items)); !bytes.Equal(got, want) {
					t.Fatalf("round %d: the index spliced by what was kept differs from the encoded one", round)
				}
				if !slices.Equal(next.offs, fresh.offs) {
					t.Fatalf("round %d: the spliced offsets differ from the encoded ones", round)
				}
				base = next
			}
			if _, err := decodeIndex(IndexOf(NewID(time.Unix(1e9, 0), ""), "disk", base.Items, sums)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestIndexFromMixed runs every kind of change in one series.
func TestIndexFromMixed(t *testing.T) {
	items, sums := spliceTree(300)
	_, base := IndexFrom("s", "disk", items, sums, nil, nil, nil)
	r := rand.New(rand.NewSource(3))
	kinds := []string{"written", "removed", "added", "top", "resummed", "relinked", "none"}
	for round := range 200 {
		var from []int32
		items, from, sums = changes[kinds[r.Intn(len(kinds))]](base.Items, sums, r)
		got, next := IndexFrom("s", "disk", items, sums, base, from, keptOf(items, from, base.Items))
		if want := IndexOf("s", "disk", items, sums); !bytes.Equal(got, want) {
			t.Fatalf("round %d: the spliced index differs from the encoded one", round)
		}
		base = next
	}
}

// keptOf is what a rescan would say it kept: each item that is its
// earlier place's, as it was.
func keptOf(items []tree.Scanned, from []int32, prev []tree.Scanned) []bool {
	kept := make([]bool, len(items))
	for i := range items {
		if k := from[i]; k >= 0 && int(k) < len(prev) {
			kept[i] = items[i] == prev[k] && tree.HardLinkOf(items, i) == tree.HardLinkOf(prev, int(k))
		}
	}
	return kept
}
