package snapstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/internal/atomicfile"
)

// Index records the identity of the disk's files as of a save or restore of
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
type Index struct {
	Snapshot string
	DiskID   string
	Exact    bool
	Version  int    // of the file's format: 1, 2 or 3
	N        int    // entries
	body     []byte // the encoded entries
}

// RestoredIndex is the exact index of a restore of snapshot id, encoded:
// the snapshot's paths (entries), with the identities the restore left
// them with (ids); a path not noted gets none, so the next save reads it
// (or, if the disk lacks it, records it as removed), and a path only the
// disk has is not indexed, so it is saved.
func RestoredIndex(id, diskID string, entries []tree.Entry, ids *tree.Idents) []byte {
	w := NewIndexWriter(id, diskID, len(entries))
	for i := range entries {
		w.Add(entries[i].Path, ids.Of(entries[i].Path), entries[i].HardLink, nil)
	}
	return w.Bytes()
}

// IndexMatch compares items of a scan, one at a time in scan order, with
// an index's entries: a scan feeds it as it appends (snapshot.ScanMatching), so
// that the comparison is done when the scan is. A damaged index matches
// nothing. It notes the watched files it passes, with their sums. Where
// the scan differs, the match stops; diffIndex goes on from there rather
// than reading the index again from its start.
type IndexMatch struct {
	c       *indexCursor
	ok      bool // every item seen so far matched
	Watched map[string]ContentSum
	seen    int // items seen
	// prefix items matched in order; at is the cursor before the entry
	// that did not (c itself while all matched). linked are the matched
	// items whose hard-link targets are compared once the scan's links
	// are known: those with a target in the index, or several names.
	prefix int
	at     indexCursor
	linked []linkSeen
}

// linkSeen is a matched item i and its hard-link target in the index.
type linkSeen struct {
	i int
	// link is the index's target of item i: its bytes in the index's
	// body, not a copy (a tree of 400,000 hard-linked names made as many
	// strings for the collector to trace, during the scan).
	link []byte
}

// Size is the bytes x holds in memory (0 for nil): a scan compared with
// it keeps them live throughout.
func (x *Index) Size() int {
	if x == nil {
		return 0
	}
	return len(x.body)
}

// Match starts comparing items with x.
func (x *Index) Match() *IndexMatch { return &IndexMatch{c: x.Cursor(), ok: true} }

// Matcher is m as a scan's Matcher: none when m is nil.
func (m *IndexMatch) Matcher() tree.Matcher {
	if m == nil {
		return nil
	}
	return m
}

// See compares the next item of the scan with the index.
func (m *IndexMatch) See(it *tree.Scanned) {
	m.seen++
	if !m.ok {
		return
	}
	at := *m.c
	p, id, ok := m.c.Next()
	if m.ok = ok && string(p) == it.Rel && tree.SameIdent(it.Rel, it.Id, id); !m.ok {
		m.at = at // m.c is not read again, so at's path is kept
		return
	}
	m.prefix++
	if m.c.Watched {
		m.note(it.Rel, m.c.sum)
	}
	if len(m.c.Link) > 0 || it.HardLink != 0 {
		m.linked = append(m.linked, linkSeen{m.prefix - 1, m.c.Link})
	}
}

// resume is where diffIndex goes on from: the cursor at the first entry
// not matched in order.
func (m *IndexMatch) resume() *indexCursor {
	if m.ok {
		c := *m.c
		return &c
	}
	c := m.at
	return &c
}

// note records watched file rel and its sum.
func (m *IndexMatch) note(rel string, sum ContentSum) {
	if m.Watched == nil {
		m.Watched = map[string]ContentSum{}
	}
	m.Watched[rel] = sum
}

// Matched reports whether the n items seen were exactly the index's
// entries, the index read to its end and sound.
func (m *IndexMatch) Matched(n int) bool {
	return m.ok && n == m.c.x.N && m.c.k == n && m.c.done() == nil
}

// Lists returns a test of whether x lists path p, made when first asked
// (a walk of the index up to p); false for a nil x.
func (x *Index) Lists(p string) func() bool {
	return sync.OnceValue(func() bool {
		found := false
		if x != nil {
			x.Walk(func(q []byte, _ tree.Ident) bool {
				found = string(q) == p
				return tree.PathLess(q, p)
			})
		}
		return found
	})
}

// PathList collects paths, keeping the first max of them and counting the
// rest.
type PathList struct {
	Paths []string
	N     int
	Max   int
}

// Add records p, counting it past the first max.
func (l *PathList) Add(p string) {
	if l.N++; len(l.Paths) < l.Max {
		l.Paths = append(l.Paths, p)
	}
}

// IndexDiff is how a scan of the disk compares with the index.
type IndexDiff struct {
	Same    []bool   // same[i]: items[i] has the identity and hard-link target the index recorded
	Gone    []string // indexed paths no longer on the disk
	Changed int      // items not the same
	// Watched are the indexed files watched for writes through shared
	// mappings still on the disk, with their sums.
	Watched map[string]ContentSum
	// Reshaped: paths were added or removed, or one changed its kind or
	// hard-link target.
	Reshaped bool
}

// DiffIndex compares items (in scan order) with x, going on where m (the
// scan's match with x, or nil) stopped; a nil x knows nothing, so every
// item is changed and nothing is gone. An item is the same when
// its identity and (an index of version 4) its hard-link target are: a
// folder renamed moves a link's target without changing the link. ok is
// false when x is damaged: the diff is then nil's, and x must not be used.
func DiffIndex(x *Index, items []tree.Scanned, m *IndexMatch) (d IndexDiff, ok bool) {
	d = IndexDiff{Same: make([]bool, len(items)), Changed: len(items)}
	if x == nil {
		return d, true
	}
	i, matched := 0, 0
	c := x.Cursor()
	if m != nil && m.c.x == x && m.seen == len(items) {
		// The items the scan's match took in order are the same, but
		// for their hard-link targets, known only now.
		i, matched, c = m.prefix, m.prefix, m.resume()
		for j := range i {
			d.Same[j] = true
		}
		d.Changed -= i
		for _, l := range m.linked {
			if link := tree.HardLinkOf(items, l.i); string(l.link) != link {
				d.Reshaped = true
				if x.Version >= 4 {
					d.Same[l.i], d.Changed = false, d.Changed+1
				}
			}
		}
		d.Watched = m.Watched
	}
	for {
		p, id, more := c.Next()
		if !more {
			break
		}
		for i < len(items) && tree.PathLess(items[i].Rel, p) {
			i++ // added, or changed from another kind: not the same
		}
		if i < len(items) && items[i].Rel == string(p) {
			link := tree.HardLinkOf(items, i)
			same := tree.SameIdent(items[i].Rel, items[i].Id, id) && (x.Version < 4 || string(c.Link) == link)
			if d.Same[i] = same; same {
				d.Changed--
			}
			matched++
			if items[i].Id.Mode&unix.S_IFMT != id.Mode&unix.S_IFMT || string(c.Link) != link {
				d.Reshaped = true
			}
			if c.Watched {
				if d.Watched == nil {
					d.Watched = map[string]ContentSum{}
				}
				d.Watched[items[i].Rel] = c.sum
			}
			i++
		} else {
			d.Gone = append(d.Gone, string(p))
		}
	}
	if c.done() != nil {
		return IndexDiff{Same: make([]bool, len(items)), Changed: len(items)}, false
	}
	d.Reshaped = d.Reshaped || len(d.Gone) > 0 || matched < len(items)
	return d, true
}

// LoadIndex reads the store's index; nil when there is none or its header
// is damaged (damaged entries are found as they are walked).
func (s *Store) LoadIndex() *Index {
	b, err := ReadBounded(s.Path("index"), MaxFile)
	if err != nil {
		return nil
	}
	x, err := OpenIndex(b)
	if err != nil {
		return nil
	}
	return x
}

// WriteIndex replaces the index (as indexOf or restoredIndex encode it)
// without fsync: it only saves work, and a lost or torn one (rejected when
// read) costs a full copy, never data. The old one is removed first: a
// rename over it makes ext4 start writing the new one's blocks out in
// the rename (auto_da_alloc), 4 ms of a 30 ms save by the feed, and the
// moment with no index costs at worst a full copy.
func (s *Store) WriteIndex(b []byte) error {
	if err := os.Remove(s.Path("index")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("replace index: %w", err)
	}
	if err := atomicfile.WriteFast(s.Path("index"), b, 0o600); err != nil {
		return tree.NoSpace(fmt.Errorf("write index: %w", err))
	}
	return nil
}
