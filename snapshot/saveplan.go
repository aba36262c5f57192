package snapshot

import (
	"rambar/snapstore"
	"rambar/tree"
)

// planDelta plans a delta on delta (the previous delta's changes, or none
// on a full manifest): the changed items read fresh, merged with delta's.
// An item gone before its metadata is read is left out, and named; one
// in same takes that entry (naming a saved object: not copied).
func planDelta(root string, delta *snapstore.Manifest, items []tree.Scanned, d snapstore.IndexDiff, same map[int32]*tree.Entry) (*savePlan, error) {
	p := &savePlan{delta: delta, removed: len(d.Gone), items: items, same: d.Same, reshaped: d.Reshaped}
	fresh := make([]tree.Entry, 0, d.Changed)
	of := map[string]int32{}
	for i, it := range items {
		if tree.KindOf(it.Id.Mode) == tree.KindFile {
			p.files++
			p.bytes += it.Id.Size
		}
		if d.Same[i] {
			continue
		}
		if e, ok := same[int32(i)]; ok {
			fresh = append(fresh, *e)
			continue
		}
		e, err := entryOf(root, items, i)
		if isGone(err) {
			p.gone = append(p.gone, it.Rel)
			continue
		}
		if err != nil {
			return nil, err
		}
		if e.HardLink != "" {
			p.reshaped = true
		}
		if tree.KindOf(it.Id.Mode) == tree.KindFile && e.HardLink == "" {
			of[e.Path] = int32(i)
		}
		fresh = append(fresh, e)
	}
	p.entries, delta.Removed = snapstore.MergeDelta(delta, fresh, d.Gone)
	for i := range p.entries {
		if e := &p.entries[i]; e.Kind == tree.KindFile && e.Obj.None() && e.HardLink == "" {
			p.jobs = append(p.jobs, copyJob{ref: int32(i), size: e.Size, sparse: e.Sparse})
			p.ofJob = append(p.ofJob, of[e.Path])
		}
	}
	return p, nil
}

// planFull plans a full manifest: every item, taken from the snapshot the
// index describes when its identity and hard-link target are unchanged,
// else made fresh; the files made fresh are copied, but those in same,
// whose entries (naming a saved object) are reused. prev, when not nil, is
// that snapshot's tree, read already.
func (s *Store) planFull(root, curID string, idx *snapstore.Index, items []tree.Scanned, d snapstore.IndexDiff, prev *snapstore.Manifest, same map[int32]*tree.Entry) *savePlan {
	f := &fullPlan{root: root, items: items}
	if prev == nil && idx != nil {
		prev, _ = s.Tree(idx.Snapshot, true)
	}
	if prev != nil {
		f.prev, f.reuse = prev.Entries, make([]int32, len(items))
		reuseSame(f, same)
	}
	p := &savePlan{full: f, items: items, same: make([]bool, len(items))}
	n := 0
	for i := range items {
		if it := &items[i]; copiesData(it) && !(prev != nil && d.Same[i]) {
			n++
		}
	}
	p.jobs = make([]copyJob, 0, n)
	pi := 0
	for i := range items {
		it := &items[i]
		if tree.KindOf(it.Id.Mode) == tree.KindFile {
			p.files++
			p.bytes += it.Id.Size
		}
		if d.Same[i] && prev != nil {
			for pi < len(prev.Entries) && tree.PathLess(prev.Entries[pi].Path, it.Rel) {
				pi++
			}
			if pi < len(prev.Entries) {
				if e := &prev.Entries[pi]; e.Path == it.Rel && kept(e) && e.HardLink == tree.HardLinkOf(items, i) {
					f.reuse[i], p.same[i] = int32(pi+1), true
					continue
				}
			}
		}
		if f.reuse != nil && f.reuse[i] > 0 { // same bytes (reuseSame)
			p.same[i] = true
			continue
		}
		if copiesData(it) {
			p.jobs = append(p.jobs, copyJob{ref: int32(i), size: it.Id.Size, sparse: it.Sparse()})
		}
	}
	if prev != nil && prev.ID == curID {
		p.removed = snapstore.RemovedFrom(prev.Entries, items)
	} else if curID != "" {
		if cur, err := s.Manifest(curID); err == nil {
			p.removed = snapstore.RemovedFrom(cur.Entries, items)
		}
	}
	return p
}

// readExtras reads the symlink targets and xattrs of the items f does not
// reuse, so that writing the manifest reads nothing more of the disk; it
// returns the paths gone meanwhile. A file's second name has none of its
// own (entryOf).
func (f *fullPlan) readExtras() ([]string, error) {
	var gone []string
	for i := range f.items {
		if f.reuse != nil && f.reuse[i] > 0 || f.items[i].HardLink > 0 {
			continue
		}
		e := tree.Entry{Path: f.items[i].Rel, Kind: tree.KindOf(f.items[i].Id.Mode)}
		x, err := tree.ReadExtra(f.root, &e)
		if isGone(err) {
			gone = append(gone, e.Path)
			continue
		}
		if err != nil {
			return nil, err
		}
		if x.Link != "" || x.Xattr != nil {
			if f.extras == nil {
				f.extras = map[string]tree.Extra{}
			}
			f.extras[e.Path] = x
		}
	}
	return gone, nil
}

// entryOf is item i's entry: tree.EntryOf, but a file's second name
// (a hard link to the first) is told by the scan alone. Its xattrs are its
// inode's, saved with its first name, and a restore links it to that
// name; a name gone since the scan is found moved by the round's look.
func entryOf(root string, items []tree.Scanned, i int) (tree.Entry, error) {
	if items[i].HardLink > 0 {
		return tree.ScanEntry(items, i), nil
	}
	return tree.EntryOf(root, items, i)
}
