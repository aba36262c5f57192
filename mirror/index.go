package mirror

import (
	"fmt"
	"rambar/tree"
	"sync"

	"golang.org/x/sys/unix"

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

// indexOf is the exact index of a save of items as snapshot, encoded:
// each path with its identity, its hard-link target and, for the files
// sums names (watched: watch.go), the sum of their contents.
func indexOf(snapshot, diskID string, items []tree.Scanned, sums map[string]contentSum) []byte {
	w := newIndexWriter(snapshot, diskID, len(items))
	for i := range items {
		var sum *contentSum
		if c, ok := sums[items[i].Rel]; ok {
			sum = &c
		}
		w.add(items[i].Rel, items[i].Id, tree.HardLinkOf(items, i), sum)
	}
	return w.bytes()
}

// restoredIndex is the exact index of a restore of snapshot id, encoded:
// the snapshot's paths (entries), with the identities the restore left
// them with (ids); a path not noted gets none, so the next save reads it
// (or, if the disk lacks it, records it as removed), and a path only the
// disk has is not indexed, so it is saved.
func restoredIndex(id, diskID string, entries []tree.Entry, ids *tree.Idents) []byte {
	w := newIndexWriter(id, diskID, len(entries))
	for i := range entries {
		w.add(entries[i].Path, ids.Of(entries[i].Path), entries[i].HardLink, nil)
	}
	return w.bytes()
}

// indexMatch compares items of a scan, one at a time in scan order, with
// an index's entries: a scan feeds it as it appends (scanMatching), so
// that the comparison is done when the scan is. A damaged index matches
// nothing. It notes the watched files it passes, with their sums. Where
// the scan differs, the match stops; diffIndex goes on from there rather
// than reading the index again from its start.
type indexMatch struct {
	c       *indexCursor
	ok      bool // every item seen so far matched
	watched map[string]contentSum
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
	i    int
	link string
}

// match starts comparing items with x.
func (x *index) match() *indexMatch { return &indexMatch{c: x.cursor(), ok: true} }

// matcher is m as a scan's Matcher: none when m is nil.
func (m *indexMatch) matcher() tree.Matcher {
	if m == nil {
		return nil
	}
	return m
}

// See compares the next item of the scan with the index.
func (m *indexMatch) See(it *tree.Scanned) {
	m.seen++
	if !m.ok {
		return
	}
	at := *m.c
	p, id, ok := m.c.next()
	if m.ok = ok && string(p) == it.Rel && sameIdent(it.Rel, it.Id, id); !m.ok {
		m.at = at // m.c is not read again, so at's path is kept
		return
	}
	m.prefix++
	if m.c.watched {
		m.note(it.Rel, m.c.sum)
	}
	if len(m.c.link) > 0 || it.HardLink != 0 {
		m.linked = append(m.linked, linkSeen{m.prefix - 1, string(m.c.link)})
	}
}

// resume is where diffIndex goes on from: the cursor at the first entry
// not matched in order.
func (m *indexMatch) resume() *indexCursor {
	if m.ok {
		c := *m.c
		return &c
	}
	c := m.at
	return &c
}

// note records watched file rel and its sum.
func (m *indexMatch) note(rel string, sum contentSum) {
	if m.watched == nil {
		m.watched = map[string]contentSum{}
	}
	m.watched[rel] = sum
}

// matched reports whether the n items seen were exactly the index's
// entries, the index read to its end and sound.
func (m *indexMatch) matched(n int) bool {
	return m.ok && n == m.c.x.n && m.c.k == n && m.c.done() == nil
}

// lists returns a test of whether x lists path p, made when first asked
// (a walk of the index up to p); false for a nil x.
func (x *index) lists(p string) func() bool {
	return sync.OnceValue(func() bool {
		found := false
		if x != nil {
			x.walk(func(q []byte, _ tree.Ident) bool {
				found = string(q) == p
				return tree.PathLess(q, p)
			})
		}
		return found
	})
}

// pathList collects paths, keeping the first max of them and counting the
// rest.
type pathList struct {
	paths []string
	n     int
	max   int
}

func (l *pathList) add(p string) {
	if l.n++; len(l.paths) < l.max {
		l.paths = append(l.paths, p)
	}
}

// sameIdent compares two identities of path rel. The top folder's times
// change whenever anything is made or removed in it, RAMBar's own scratch
// folders included (ramdisk.ScratchPrefix), so there they alone do not make
// a disk unsaved: what it holds is compared entry by entry.
func sameIdent(rel string, a, b tree.Ident) bool {
	if rel == "." {
		a.CTime, a.MTime, a.Size = b.CTime, b.MTime, b.Size
	}
	return a == b
}

// indexDiff is how a scan of the disk compares with the index.
type indexDiff struct {
	same    []bool   // same[i]: items[i] has the identity and hard-link target the index recorded
	gone    []string // indexed paths no longer on the disk
	changed int      // items not the same
	// watched are the indexed files watched for writes through shared
	// mappings still on the disk, with their sums.
	watched map[string]contentSum
	// reshaped: paths were added or removed, or one changed its kind or
	// hard-link target.
	reshaped bool
}

// diffIndex compares items (in scan order) with x, going on where m (the
// scan's match with x, or nil) stopped; a nil x knows nothing, so every
// item is changed and nothing is gone. An item is the same when
// its identity and (an index of version 4) its hard-link target are: a
// folder renamed moves a link's target without changing the link. ok is
// false when x is damaged: the diff is then nil's, and x must not be used.
func diffIndex(x *index, items []tree.Scanned, m *indexMatch) (d indexDiff, ok bool) {
	d = indexDiff{same: make([]bool, len(items)), changed: len(items)}
	if x == nil {
		return d, true
	}
	i, matched := 0, 0
	c := x.cursor()
	if m != nil && m.c.x == x && m.seen == len(items) {
		// The items the scan's match took in order are the same, but
		// for their hard-link targets, known only now.
		i, matched, c = m.prefix, m.prefix, m.resume()
		for j := range i {
			d.same[j] = true
		}
		d.changed -= i
		for _, l := range m.linked {
			if link := tree.HardLinkOf(items, l.i); l.link != link {
				d.reshaped = true
				if x.version >= 4 {
					d.same[l.i], d.changed = false, d.changed+1
				}
			}
		}
		d.watched = m.watched
	}
	for {
		p, id, more := c.next()
		if !more {
			break
		}
		for i < len(items) && tree.PathLess(items[i].Rel, p) {
			i++ // added, or changed from another kind: not the same
		}
		if i < len(items) && items[i].Rel == string(p) {
			link := tree.HardLinkOf(items, i)
			same := sameIdent(items[i].Rel, items[i].Id, id) && (x.version < 4 || string(c.link) == link)
			if d.same[i] = same; same {
				d.changed--
			}
			matched++
			if items[i].Id.Mode&unix.S_IFMT != id.Mode&unix.S_IFMT || string(c.link) != link {
				d.reshaped = true
			}
			if c.watched {
				if d.watched == nil {
					d.watched = map[string]contentSum{}
				}
				d.watched[items[i].Rel] = c.sum
			}
			i++
		} else {
			d.gone = append(d.gone, string(p))
		}
	}
	if c.done() != nil {
		return indexDiff{same: make([]bool, len(items)), changed: len(items)}, false
	}
	d.reshaped = d.reshaped || len(d.gone) > 0 || matched < len(items)
	return d, true
}

// loadIndex reads the store's index; nil when there is none or its header
// is damaged (damaged entries are found as they are walked).
func (s *storeCore) loadIndex() *index {
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
func (s *storeCore) writeIndex(b []byte) error {
	if err := atomicfile.WriteFast(s.path("index"), b, 0o600); err != nil {
		return tree.NoSpace(fmt.Errorf("write index: %w", err))
	}
	return nil
}

// scanMatching is scanAll that also compares the paths, as they are found,
// with the index x (nil: none): same reports that they are exactly x's
// (x.matches, without a second pass over the scan). An empty lost+found of
// the file system's is kept when x lists one (the user's, merged with it).
func scanMatching(root string, hint int, x *index, caches bool) (items []tree.Scanned, notKept []tree.NotKept, same bool, err error) {
	m, keepLF := (*indexMatch)(nil), x.lists("lost+found")
	if x != nil {
		m = x.match()
	}
	items, notKept, err = tree.ScanWith(root, hint, m.matcher(), tree.Opts{KeepLF: keepLF, Caches: caches})
	return items, notKept, m != nil && m.matched(len(items)), err
}
