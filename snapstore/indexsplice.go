package snapstore

import (
	"bytes"
	"math"
	"slices"
	"unsafe"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// IndexBase is an index as a save encoded it, kept in memory by saves
// that follow a disk's change feed: the next save's index copies the
// encoding of every run of unchanged paths from it (IndexFrom), so that
// writing the index of a 200,000-path disk after ten changes costs ten
// entries and a copy, not 200,000 encodings.
type IndexBase struct {
	// Items and Sums are what the index was made of.
	Items []tree.Scanned
	Sums  map[string]ContentSum
	// Stamp is the index file as written (Store.IndexStamp; zero: not
	// known to be written).
	Stamp IndexStamp

	snapshot, diskID string
	body             []byte   // the encoded entries, after the header
	offs             []uint32 // offs[k]: where entry k starts in body; offs[len(Items)]: its end
}

// IndexOf is the exact index of a save of items as snapshot, encoded:
// each path with its identity, its hard-link target and, for the files
// sums names (watched: watch.go), the sum of their contents.
func IndexOf(snapshot, diskID string, items []tree.Scanned, sums map[string]ContentSum) []byte {
	b, _ := IndexFrom(snapshot, diskID, items, sums, nil, nil, nil)
	return b
}

// IndexFrom is IndexOf taking what it can from base (nil: nothing):
// from[i] is item i's place in base.Items (-1: a new path). Item i's
// encoding is copied when it is base's item from[i] with the same path,
// identity, hard-link target and sum, and so is the item before it (an
// entry is encoded against the one before it). kept, when not nil, is
// the caller's word that kept[i] items are base's from[i] as they were
// (tree.Rescanned.Kept): those are not compared. The bytes are exactly
// IndexOf's. It returns the base the next save goes on from.
func IndexFrom(snapshot, diskID string, items []tree.Scanned, sums map[string]ContentSum, base *IndexBase, from []int32, kept []bool) ([]byte, *IndexBase) {
	w := NewIndexWriter(snapshot, diskID, len(items))
	head := len(w.e.B)
	if base != nil && len(from) != len(items) {
		base = nil
	}
	if len(kept) != len(items) {
		kept = nil
	}
	if base != nil {
		w.e.B = slices.Grow(w.e.B, len(base.body)+1024)
	}
	offs := make([]uint32, 0, len(items)+1)
	resummed := sumsDiffer(base, sums)
	run := -1      // the first item of the run being copied
	match := false // whether the item before is its base item
	flush := func(to int) {
		if run < 0 {
			return
		}
		k0, k1 := int(from[run]), int(from[to-1])+1
		shift := int64(len(w.e.B)-head) - int64(base.offs[k0])
		w.e.B = append(w.e.B, base.body[base.offs[k0]:base.offs[k1]]...)
		for k := k0; k < k1; k++ {
			offs = append(offs, uint32(int64(base.offs[k])+shift))
		}
		last := &items[to-1]
		w.prev, w.ino, w.ctime, w.mtime = last.Rel, last.Id.Ino, last.Id.CTime, last.Id.MTime
		run = -1
	}
	for i := range items {
		var ok bool
		switch {
		case base == nil:
		case kept != nil && kept[i]:
			k := from[i]
			ok = (i > 0 && k > 0 && match && from[i-1] == k-1 || i == 0 && k == 0) && (len(resummed) == 0 || !resummed[items[i].Rel])
			match = true
		default:
			ok, match = copiable(items, i, base, from, match, resummed)
		}
		if ok {
			if run < 0 {
				run = i
			}
			continue
		}
		flush(i)
		var sum *ContentSum
		if c, ok := sums[items[i].Rel]; ok {
			sum = &c
		}
		offs = append(offs, uint32(len(w.e.B)-head))
		w.Add(items[i].Rel, items[i].Id, tree.HardLinkOf(items, i), sum)
	}
	flush(len(items))
	b := w.Bytes()
	if len(b)-head > math.MaxUint32 {
		return b, nil
	}
	offs = append(offs, uint32(len(b)-head))
	return b, &IndexBase{Items: items, Sums: sums, body: b[head:], offs: offs, snapshot: snapshot, diskID: diskID}
}

// Index is the index b encodes, as LoadIndex would read it back.
func (b *IndexBase) Index() *Index {
	return &Index{Snapshot: b.snapshot, DiskID: b.diskID, Exact: true, Version: 4, N: len(b.Items), body: b.body}
}

// IndexStamp tells one write of the index file from another: its inode,
// size and times (every write replaces the file).
type IndexStamp struct {
	ino          uint64
	size         int64
	mtime, ctime int64
}

// WriteIndexFrom writes the index b that IndexFrom encoded as base (nil:
// none) and, once it is written, records the file's stamp in base: the
// next save takes the index from base while the file is still that one.
func (s *Store) WriteIndexFrom(b []byte, base *IndexBase) error {
	if err := s.WriteIndex(b); err != nil {
		return err
	}
	if base != nil {
		base.Stamp, _ = s.IndexStamp()
	}
	return nil
}

// IndexStamp is the index file's stamp now; false when there is none.
func (s *Store) IndexStamp() (IndexStamp, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(s.Path("index"), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return IndexStamp{}, false
	}
	id := tree.IdentOf(&st)
	return IndexStamp{ino: id.Ino, size: id.Size, mtime: id.MTime, ctime: id.CTime}, true
}

// copiable reports whether item i's encoding is base's entry from[i]'s
// (see IndexFrom), given whether item i-1 is its own base item (before);
// and whether item i is (same). resummed are the paths whose sums differ
// from base's.
func copiable(items []tree.Scanned, i int, base *IndexBase, from []int32, before bool, resummed map[string]bool) (ok, same bool) {
	k := int(from[i])
	if k < 0 || k >= len(base.Items) || !sameItem(&items[i], &base.Items[k]) {
		return false, false
	}
	if i == 0 || k == 0 {
		if i != 0 || k != 0 {
			return false, true
		}
	} else if !before || int(from[i-1]) != k-1 {
		return false, true
	}
	if (items[i].HardLink != 0 || base.Items[k].HardLink != 0) && tree.HardLinkOf(items, i) != tree.HardLinkOf(base.Items, k) {
		return false, true
	}
	return len(resummed) == 0 || !resummed[items[i].Rel], true
}

// sameItem reports whether a and b have the same path and identity (a
// carried item shares its path's bytes: compared as pointers first).
func sameItem(a, b *tree.Scanned) bool {
	if !(tree.Compare{}).Same(a.Id, b.Id) {
		return false
	}
	return len(a.Rel) == len(b.Rel) && (unsafe.StringData(a.Rel) == unsafe.StringData(b.Rel) || a.Rel == b.Rel)
}

// sumsDiffer is the paths whose sums in sums differ from base's (watched
// then and not now, or now and not then, or other contents).
func sumsDiffer(base *IndexBase, sums map[string]ContentSum) map[string]bool {
	if base == nil || len(base.Sums) == 0 && len(sums) == 0 {
		return nil
	}
	d := map[string]bool{}
	for p, c := range sums {
		if o, ok := base.Sums[p]; !ok || !bytes.Equal(o[:], c[:]) {
			d[p] = true
		}
	}
	for p := range base.Sums {
		if _, ok := sums[p]; !ok {
			d[p] = true
		}
	}
	return d
}
