package mirror

import (
	"fmt"

	"rambar/internal/atomicfile"
)

// index records the identity of the disk's files as of a save or restore of
// snapshot Snapshot on the disk whose marker is DiskID: paths in scan order
// (pathLess) with their identities. It is a compact binary file (codec.go),
// because a save with nothing changed reads it whole and compares, and
// little else.
//
// Exact (version 2 files) promises that Paths are exactly the paths of
// Snapshot's tree, no more and no fewer: a save may then record only what
// changed (a delta manifest), taking every path with an unchanged identity
// from Snapshot and every indexed path no longer on the disk as removed.
// Version 1 files (older saves and restores) promise less and are only
// used to skip reading unchanged files.
type index struct {
	Snapshot string
	DiskID   string
	Exact    bool
	Paths    []string
	Idents   []ident
}

// indexOf is the exact index of a save of items as snapshot.
func indexOf(snapshot, diskID string, items []scanned) *index {
	x := &index{Snapshot: snapshot, DiskID: diskID, Exact: true, Paths: make([]string, len(items)), Idents: make([]ident, len(items))}
	for i, it := range items {
		x.Paths[i], x.Idents[i] = it.rel, it.id
	}
	return x
}

// restoredIndex is the exact index of a restore of snapshot id: the
// snapshot's paths (entries), with the identities the disk now shows
// (items); a path the disk lacks gets none, so the next save records it as
// removed, and a path only the disk has is not indexed, so it is saved.
func restoredIndex(id, diskID string, entries []Entry, items []scanned) *index {
	x := &index{Snapshot: id, DiskID: diskID, Exact: true, Paths: make([]string, len(entries)), Idents: make([]ident, len(entries))}
	j := 0
	for i, e := range entries {
		x.Paths[i] = e.Path
		for j < len(items) && pathLess(items[j].rel, e.Path) {
			j++
		}
		if j < len(items) && items[j].rel == e.Path {
			x.Idents[i] = items[j].id
		}
	}
	return x
}

// matches reports whether items (in scan order) are exactly the indexed
// paths with the indexed identities: nothing added, removed or changed.
func (x *index) matches(items []scanned) bool {
	if len(items) != len(x.Paths) {
		return false
	}
	for i, it := range items {
		if it.rel != x.Paths[i] || !sameIdent(it.rel, it.id, x.Idents[i]) {
			return false
		}
	}
	return true
}

// sameIdent compares two identities of path rel. The top folder's times
// change whenever anything is made or removed in it, RAMBar's own scratch
// folders included (ramdisk.ScratchPrefix), so there they alone do not make
// a disk unsaved: what it holds is compared entry by entry.
func sameIdent(rel string, a, b ident) bool {
	if rel == "." {
		a.CTime, a.MTime, a.Size = b.CTime, b.MTime, b.Size
	}
	return a == b
}

// indexDiff is how a scan of the disk compares with the index.
type indexDiff struct {
	same    []bool   // same[i]: items[i] has the identity the index recorded
	gone    []string // indexed paths no longer on the disk
	changed int      // items not the same
}

// diffIndex compares items (in scan order) with x; a nil x knows nothing,
// so every item is changed and nothing is gone.
func diffIndex(x *index, items []scanned) indexDiff {
	d := indexDiff{same: make([]bool, len(items)), changed: len(items)}
	if x == nil {
		return d
	}
	xi := 0
	for i, it := range items {
		for xi < len(x.Paths) && pathLess(x.Paths[xi], it.rel) {
			d.gone = append(d.gone, x.Paths[xi])
			xi++
		}
		if xi < len(x.Paths) && x.Paths[xi] == it.rel {
			if d.same[i] = sameIdent(it.rel, it.id, x.Idents[xi]); d.same[i] {
				d.changed--
			}
			xi++
		}
	}
	d.gone = append(d.gone, x.Paths[xi:]...)
	return d
}

// loadIndex reads the store's index; nil when there is none or it is damaged.
func (s *store) loadIndex() *index {
	b, err := readBounded(s.path("index"), maxFile)
	if err != nil {
		return nil
	}
	x, err := decodeIndex(b)
	if err != nil {
		return nil
	}
	return x
}

// writeIndex replaces the index without fsync: it only saves work, and a
// lost or torn one (rejected when read) costs a full copy, never data.
func (s *store) writeIndex(x *index) error {
	if err := atomicfile.WriteFast(s.path("index"), encodeIndex(x), 0o600); err != nil {
		return noSpace(fmt.Errorf("write index: %w", err))
	}
	return nil
}
