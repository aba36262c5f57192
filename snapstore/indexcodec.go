package snapstore

import (
	"bytes"

	"rambar/tree"
)

// An index file: magic, snapshot, disk ID, the number of paths, then per
// path its identity, in pathLess order.
//
//	version 1: path, inode, ctime, mtime, size, mode (not exact: see index)
//	version 2: as version 1, exact
//	version 3: exact; the path as the length of the prefix it shares with
//	           the previous path and the rest, the inode, ctime and mtime
//	           as differences from the previous path's, then size and mode
//	version 4: as version 3, then the path's hard-link target (the first
//	           name of its inode in scan order; none for the first, or a
//	           file with one name) as its length times two plus one for a
//	           watched file, the target's bytes, and for a watched file
//	           (one seen mapped shared and writable: watch.go) the
//	           SHA-256 of its contents
//
// Version 3 is about half the size of version 2 for a tree of small files
// (paths share their folders; files made together have close inode numbers
// and times). Every version is read; version 4 is written.
const (
	indexMagic   = "RAMBAR-INDEX-4\n"
	indexMagicV3 = "RAMBAR-INDEX-3\n"
	indexMagicV2 = "RAMBAR-INDEX-2\n"
	indexMagicV1 = "RAMBAR-INDEX-1\n"
)

// ContentSum is a SHA-256 of a file's contents.
type ContentSum [32]byte

// indexWriter encodes an index (version 4) path by path.
type indexWriter struct {
	e            Encoder
	prev         string
	ino          uint64
	ctime, mtime int64
}

// NewIndexWriter starts the exact index of snapshot on disk diskID, which
// will hold n paths.
func NewIndexWriter(snapshot, diskID string, n int) *indexWriter {
	w := &indexWriter{e: Encoder{B: make([]byte, 0, 64+len(snapshot)+len(diskID)+24*n)}}
	w.e.B = append(w.e.B, indexMagic...)
	w.e.Str(snapshot)
	w.e.Str(diskID)
	w.e.Uv(uint64(n))
	return w
}

// Add appends path p (after the previous one in pathLess order) with id,
// its hard-link target link ("" for none) and, for a watched file, the sum
// of its contents (nil: not watched).
func (w *indexWriter) Add(p string, id tree.Ident, link string, sum *ContentSum) {
	shared := 0
	for shared < len(p) && shared < len(w.prev) && p[shared] == w.prev[shared] {
		shared++
	}
	w.e.Uv(uint64(shared))
	w.e.Str(p[shared:])
	w.e.Sv(int64(id.Ino - w.ino))
	w.e.Sv(id.CTime - w.ctime)
	w.e.Sv(id.MTime - w.mtime)
	w.e.Sv(id.Size)
	w.e.Uv(uint64(id.Mode))
	watched := uint64(0)
	if sum != nil {
		watched = 1
	}
	w.e.Uv(uint64(len(link))<<1 | watched)
	w.e.B = append(w.e.B, link...)
	if sum != nil {
		w.e.B = append(w.e.B, sum[:]...)
	}
	w.prev, w.ino, w.ctime, w.mtime = p, id.Ino, id.CTime, id.MTime
}

// Bytes is the encoded index.
func (w *indexWriter) Bytes() []byte { return w.e.B }

// OpenIndex reads an index file's header; its entries are checked as walk
// reads them.
func OpenIndex(b []byte) (*Index, error) {
	d := &Decoder{B: b}
	version := 4 - d.Magic(indexMagic, indexMagicV3, indexMagicV2, indexMagicV1)
	x := &Index{Snapshot: d.Str(), DiskID: d.Str(), Exact: version >= 2, Version: version}
	x.N = d.Count(6)
	if d.Bad || (x.Snapshot != "" && !ValidID(x.Snapshot)) {
		return nil, errBadIndex
	}
	x.body = d.B
	return x, nil
}

// decodeIndex reads an index file and checks every entry.
func decodeIndex(b []byte) (*Index, error) {
	x, err := OpenIndex(b)
	if err != nil {
		return nil, err
	}
	if err := x.Walk(func([]byte, tree.Ident) bool { return true }); err != nil {
		return nil, err
	}
	return x, nil
}

// Walk calls fn with each indexed path (bytes valid only during the call)
// and its identity, in order, until fn returns false. It returns
// errBadIndex at the first malformed entry (a path not clean, out of
// order, a field cut short, bytes after the last entry): an index is
// trusted no further than it reads.
func (x *Index) Walk(fn func(p []byte, id tree.Ident) bool) error {
	c := x.Cursor()
	for {
		p, id, ok := c.Next()
		if !ok {
			return c.done()
		}
		if !fn(p, id) {
			return nil
		}
	}
}

// indexCursor reads an index's entries one at a time, in order, checking
// each as walk does: walk and the scan's match (indexMatch) read through
// it.
type indexCursor struct {
	x          *Index
	d          Decoder
	cur, spare []byte // the last path returned; a buffer for the next
	id         tree.Ident
	k          int // entries read
	err        error
	// Link is the last entry's hard-link target (version 4): bytes of the
	// index's body, never written, so valid as long as the index is; sum
	// its contents' sum when watched is set.
	Link    []byte
	Watched bool
	sum     ContentSum
}

// Cursor starts reading x's entries.
func (x *Index) Cursor() *indexCursor { return &indexCursor{x: x, d: Decoder{B: x.body}} }

// Next reads the next entry: its path (bytes valid until the next call)
// and identity; false after the last entry or at a malformed one (then
// err is errBadIndex).
func (c *indexCursor) Next() ([]byte, tree.Ident, bool) {
	if c.err != nil || c.k == c.x.N {
		return nil, tree.Ident{}, false
	}
	d, prev, cur := &c.d, c.cur, c.spare[:0]
	shared := 0
	if c.x.Version >= 3 {
		n := d.Uv()
		if n > uint64(len(prev)) {
			c.err = errBadIndex
			return nil, tree.Ident{}, false
		}
		shared = int(n)
		cur = append(append(cur, prev[:shared]...), d.Raw()...)
		c.id = tree.Ident{Ino: c.id.Ino + uint64(d.Sv()), CTime: c.id.CTime + d.Sv(), MTime: c.id.MTime + d.Sv()}
	} else {
		cur = append(cur, d.Raw()...)
		c.id = tree.Ident{Ino: d.Uv(), CTime: d.Sv(), MTime: d.Sv()}
	}
	c.id.Size, c.id.Mode = d.Sv(), uint32(d.Uv())
	c.Link, c.Watched = nil, false
	if c.x.Version >= 4 {
		n := d.Uv()
		c.Watched = n&1 != 0
		if c.Link = d.fixed(n >> 1); c.Watched {
			copy(c.sum[:], d.fixed(uint64(len(c.sum))))
		}
		if len(c.Link) > 0 && (!cleanFrom(c.Link, 0) || !tree.PathLess(c.Link, cur)) {
			d.Bad = true // a target is a clean path before its link
		}
	}
	if d.Bad || !nextPath(prev, cur, shared, c.k == 0) {
		c.err = errBadIndex
		return nil, tree.Ident{}, false
	}
	c.k++
	c.spare, c.cur = prev, cur
	return cur, c.id, true
}

// done is, once next has returned false, errBadIndex if an entry was
// malformed or bytes follow the last one; nil if every entry was read
// and sound (or reading stopped early with no fault found).
func (c *indexCursor) done() error {
	if c.err == nil && c.k == c.x.N && !c.d.End() {
		c.err = errBadIndex
	}
	return c.err
}

// nextPath reports whether cur, which shares its first shared bytes with
// prev, is clean and comes after prev (or, first, is any clean path). Only
// what cur adds to prev is looked at: the component shared cuts into, and
// the rest.
func nextPath(prev, cur []byte, shared int, first bool) bool {
	isDot := len(cur) == 1 && cur[0] == '.'
	if first {
		return isDot || cleanFrom(cur, 0)
	}
	if isDot {
		return false // only the first path may be the root
	}
	if len(prev) == 1 && prev[0] == '.' {
		return cleanFrom(cur, 0)
	}
	from := bytes.LastIndexByte(cur[:shared], '/') + 1
	return cleanFrom(cur, from) && tree.ComponentLess(prev[shared:], cur[shared:])
}
