package mirror

import (
	"fmt"

	"rambar/internal/atomicfile"
)

// index records the identity of the disk's files as of a save or restore of
// snapshot Snapshot on the disk whose marker is DiskID: paths in scan order
// (pathLess) with their identities. It is a compact binary file
// (indexcodec.go), because a save with nothing changed reads it whole and
// compares, and little else: the entries stay encoded and are compared as
// they are read (walk), so the comparison makes no string per path.
//
// Exact (version 2 and 3 files) promises that the paths are exactly the
// paths of Snapshot's tree, no more and no fewer: a save may then record
// only what changed (a delta manifest), taking every path with an
// unchanged identity from Snapshot and every indexed path no longer on the
// disk as removed. Version 1 files (older saves and restores) promise less
// and are only used to skip reading unchanged files.
type index struct {
	Snapshot string
	DiskID   string
	Exact    bool
	version  int    // of the file's format: 1, 2 or 3
	n        int    // entries
	body     []byte // the encoded entries
}

// indexOf is the exact index of a save of items as snapshot, encoded.
func indexOf(snapshot, diskID string, items []scanned) []byte {
	w := newIndexWriter(snapshot, diskID, len(items))
	for i := range items {
		w.add(items[i].rel, items[i].id)
	}
	return w.bytes()
}

// restoredIndex is the exact index of a restore of snapshot id, encoded:
// the snapshot's paths (entries), with the identities the restore left
// them with (ids); a path not noted gets none, so the next save reads it
// (or, if the disk lacks it, records it as removed), and a path only the
// disk has is not indexed, so it is saved.
func restoredIndex(id, diskID string, entries []Entry, ids *idents) []byte {
	w := newIndexWriter(id, diskID, len(entries))
	for i := range entries {
		w.add(entries[i].Path, ids.of(entries[i].Path))
	}
	return w.bytes()
}

// indexMatch compares items of a scan, one at a time in scan order, with
// an index's entries: a scan feeds it as it appends (scanMatching), so
// that the comparison is done when the scan is. A damaged index matches
// nothing.
type indexMatch struct {
	c  *indexCursor
	ok bool // every item seen so far matched
}

// match starts comparing items with x.
func (x *index) match() *indexMatch { return &indexMatch{c: x.cursor(), ok: true} }

// see compares the next item with the next entry.
func (m *indexMatch) see(it *scanned) {
	if !m.ok {
		return
	}
	p, id, ok := m.c.next()
	m.ok = ok && string(p) == it.rel && sameIdent(it.rel, it.id, id)
}

// matched reports whether the n items seen were exactly the index's
// entries, the index read to its end and sound.
func (m *indexMatch) matched(n int) bool {
	return m.ok && n == m.c.x.n && m.c.k == n && m.c.done() == nil
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
// so every item is changed and nothing is gone. ok is false when x is
// damaged: the diff is then nil's, and x must not be used.
func diffIndex(x *index, items []scanned) (d indexDiff, ok bool) {
	d = indexDiff{same: make([]bool, len(items)), changed: len(items)}
	if x == nil {
		return d, true
	}
	i := 0
	err := x.walk(func(p []byte, id ident) bool {
		for i < len(items) && pathLess(items[i].rel, p) {
			i++ // added, or changed from another kind: not the same
		}
		if i < len(items) && items[i].rel == string(p) {
			if d.same[i] = sameIdent(items[i].rel, items[i].id, id); d.same[i] {
				d.changed--
			}
			i++
		} else {
			d.gone = append(d.gone, string(p))
		}
		return true
	})
	if err != nil {
		return indexDiff{same: make([]bool, len(items)), changed: len(items)}, false
	}
	return d, true
}

// loadIndex reads the store's index; nil when there is none or its header
// is damaged (damaged entries are found as they are walked).
func (s *store) loadIndex() *index {
	b, err := readBounded(s.path("index"), maxFile)
	if err != nil {
		return nil
	}
	x, err := openIndex(b)
	if err != nil {
		return nil
	}
	return x
}

// writeIndex replaces the index (as indexOf or restoredIndex encode it)
// without fsync: it only saves work, and a lost or torn one (rejected when
// read) costs a full copy, never data.
func (s *store) writeIndex(b []byte) error {
	if err := atomicfile.WriteFast(s.path("index"), b, 0o600); err != nil {
		return noSpace(fmt.Errorf("write index: %w", err))
	}
	return nil
}
