package snapshot

import (
	"fmt"

	"rambar/snapstore"
	"rambar/tree"
)

// Unsaved is what a disk holds that the save or restore its index
// describes does not: Held names the paths on the disk added or changed
// since (a file, link or other non-folder whose identity or, for a file
// watched through a shared mapping, contents differ; a folder only when
// it is new there, as a changed folder's own change is its entries'),
// Gone the indexed paths no longer on the disk. Any is set when anything
// differs at all (the top folder's own times and mode too).
type Unsaved struct {
	Held snapstore.PathList
	Gone snapstore.PathList
	Any  bool
}

// UnsavedSince compares the disk at root with idx, the index of its last
// save or restore (nil: none, so everything on it is unsaved), naming at
// most max paths of each kind. caches: a Caches folder at the top is
// contents (Store.Caches). It reads the metadata of the whole disk, and
// the contents of files mapped shared and writable now or at that save.
func UnsavedSince(root string, idx *snapstore.Index, caches bool, max int) (Unsaved, error) {
	u := Unsaved{Held: snapstore.PathList{Max: max}, Gone: snapstore.PathList{Max: max}}
	mapped := make(chan map[uint64]bool, 1)
	go func() { mapped <- mappedFiles(root) }()
	hint := tree.InodesUsed(root)
	if idx != nil {
		hint = idx.N
	}
	items, _, m, err := scanAgainst(root, hint, idx, caches, nil, nil)
	w := newWatch(<-mapped, nil)
	if err != nil {
		return u, fmt.Errorf("look for unsaved changes on %s: %w", root, err)
	}
	dropWALIndexes(root, items, w.mapped)
	d, ok := snapstore.DiffIndex(idx, items, m)
	if !ok { // a damaged index vouches for nothing
		idx = nil
		d, _ = snapstore.DiffIndex(nil, items, nil)
	}
	w.old = d.Watched
	byContent, err := w.changed(root, items)
	if err != nil {
		return u, fmt.Errorf("look for unsaved changes on %s: %w", root, err)
	}
	for _, i := range byContent {
		d.Same[i] = false
	}
	// A changed folder is named only when the index lacks it as a folder.
	folders := map[string]bool{}
	for i := range items {
		if !d.Same[i] && items[i].Rel != "." && tree.KindOf(items[i].Id.Mode) == tree.KindDir {
			folders[items[i].Rel] = false
		}
	}
	if idx != nil && len(folders) > 0 {
		idx.Walk(func(p []byte, id tree.Ident) bool {
			if _, ok := folders[string(p)]; ok && tree.KindOf(id.Mode) == tree.KindDir {
				folders[string(p)] = true // known: only its entries changed
			}
			return true
		})
	}
	for i := range items {
		it := &items[i]
		if d.Same[i] {
			continue
		}
		u.Any = true
		if known, ok := folders[it.Rel]; it.Rel == "." || ok && known {
			continue
		}
		u.Held.Add(it.Rel)
	}
	for _, p := range d.Gone {
		u.Any = true
		u.Gone.Add(p)
	}
	return u, nil
}
