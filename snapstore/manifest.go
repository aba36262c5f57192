package snapstore

import (
	"sort"
	"time"

	"rambar/tree"
)

// Manifest is one save: the whole tree, or (a delta, Base set) the paths
// added or changed since the full manifest Base and the paths removed since.
// On disk (codec.go) the header comes first, so listing and pruning read
// the header only.
type Manifest struct {
	Header
	Entries []tree.Entry
	// Removed lists, in a delta, the paths of Base that are gone.
	Removed []string
}

// Header is what a manifest says of its snapshot before its entries.
type Header struct {
	ID      string
	Created time.Time
	Files   int   // regular files of the whole tree
	Bytes   int64 // their total size
	// Base is, for a delta, the full manifest it records changes to.
	Base string
	// Refs lists, per save, the numbers of the objects this manifest's
	// entries use (a delta's Base lists the rest).
	Refs map[string][]uint32
}

// defaultDeltaLimit is the most entries plus removed paths a delta on a
// base of baseFiles files may hold; a save that would make a bigger one
// writes a full manifest instead (the compaction), and later deltas build
// on that.
func defaultDeltaLimit(baseFiles int) int { return 256 + baseFiles/2 }

// applyDelta returns base (in pathLess order) without the removed paths
// and with sets (in pathLess order) added or replacing their paths.
func applyDelta(base []tree.Entry, removed []string, sets []tree.Entry) []tree.Entry {
	gone := make(map[string]bool, len(removed))
	for _, p := range removed {
		gone[p] = true
	}
	out := make([]tree.Entry, 0, len(base)+len(sets))
	j := 0
	for _, e := range base {
		for j < len(sets) && tree.PathLess(sets[j].Path, e.Path) {
			out = append(out, sets[j])
			j++
		}
		if j < len(sets) && sets[j].Path == e.Path {
			out = append(out, sets[j])
			j++
			continue
		}
		if !gone[e.Path] {
			out = append(out, e)
		}
	}
	return append(out, sets[j:]...)
}

// MergeDelta folds the changes since prev's snapshot (fresh entries, gone
// paths; pathLess order) into prev's delta: the new delta's entries (fresh
// ones replacing prev's, gone ones dropped) and removed paths.
func MergeDelta(prev *Manifest, fresh []tree.Entry, gone []string) ([]tree.Entry, []string) {
	isGone := make(map[string]bool, len(gone))
	for _, p := range gone {
		isGone[p] = true
	}
	kept := make([]tree.Entry, 0, len(prev.Entries))
	for _, e := range prev.Entries {
		if !isGone[e.Path] {
			kept = append(kept, e)
		}
	}
	entries := applyDelta(kept, nil, fresh)
	set := make(map[string]bool, len(fresh))
	for _, e := range fresh {
		set[e.Path] = true
	}
	seen := map[string]bool{}
	var rm []string
	for _, list := range [][]string{prev.Removed, gone} {
		for _, p := range list {
			if !set[p] && !seen[p] {
				seen[p] = true
				rm = append(rm, p)
			}
		}
	}
	sort.Slice(rm, func(i, j int) bool { return tree.PathLess(rm[i], rm[j]) })
	return entries, rm
}

// RemovedFrom counts the paths of old (in pathLess order) missing from
// items.
func RemovedFrom(old []tree.Entry, items []tree.Scanned) int {
	n, j := 0, 0
	for i := range old {
		for j < len(items) && tree.PathLess(items[j].Rel, old[i].Path) {
			j++
		}
		if j >= len(items) || items[j].Rel != old[i].Path {
			n++
		}
	}
	return n
}
