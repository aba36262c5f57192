package mirror

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// index records the identity of the disk's files as of a save or restore of
// snapshot Snapshot on the disk whose marker is DiskID: paths in scan order
// (pathLess) with their identities. It is a compact binary file, because a
// save with nothing changed reads it whole and compares, and little else.
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

const (
	indexMagic   = "RAMBAR-INDEX-2\n"
	indexMagicV1 = "RAMBAR-INDEX-1\n"
)

func indexOf(snapshot, diskID string, items []scanned) *index {
	x := &index{Snapshot: snapshot, DiskID: diskID, Exact: true, Paths: make([]string, len(items)), Idents: make([]ident, len(items))}
	for i, it := range items {
		x.Paths[i], x.Idents[i] = it.rel, it.id
	}
	return x
}

func (x *index) encode(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	var tmp [binary.MaxVarintLen64]byte
	uv := func(v uint64) { bw.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	sv := func(v int64) { bw.Write(tmp[:binary.PutVarint(tmp[:], v)]) }
	str := func(s string) { uv(uint64(len(s))); bw.WriteString(s) }
	if x.Exact {
		bw.WriteString(indexMagic)
	} else {
		bw.WriteString(indexMagicV1)
	}
	str(x.Snapshot)
	str(x.DiskID)
	uv(uint64(len(x.Paths)))
	for i, p := range x.Paths {
		id := x.Idents[i]
		str(p)
		uv(id.Ino)
		sv(id.CTime)
		sv(id.MTime)
		sv(id.Size)
		uv(uint64(id.Mode))
	}
	return bw.Flush()
}

var errBadIndex = errors.New("bad index")

func decodeIndex(b []byte) (*index, error) {
	if len(b) < len(indexMagic) {
		return nil, errBadIndex
	}
	exact := string(b[:len(indexMagic)]) == indexMagic
	if !exact && string(b[:len(indexMagicV1)]) != indexMagicV1 {
		return nil, errBadIndex
	}
	b = b[len(indexMagic):]
	bad := false
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			bad = true
			return 0
		}
		b = b[n:]
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			bad = true
			return 0
		}
		b = b[n:]
		return v
	}
	str := func() string {
		n := uv()
		if bad || n > uint64(len(b)) {
			bad = true
			return ""
		}
		s := string(b[:n])
		b = b[n:]
		return s
	}
	x := &index{Snapshot: str(), DiskID: str(), Exact: exact}
	n := uv()
	if bad || n > uint64(len(b)) {
		return nil, errBadIndex
	}
	x.Paths, x.Idents = make([]string, 0, n), make([]ident, 0, n)
	for i := uint64(0); i < n && !bad; i++ {
		x.Paths = append(x.Paths, str())
		x.Idents = append(x.Idents, ident{Ino: uv(), CTime: sv(), MTime: sv(), Size: sv(), Mode: uint32(uv())})
	}
	if bad || len(b) != 0 {
		return nil, errBadIndex
	}
	return x, nil
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

func (s *store) loadIndex() *index {
	b, err := os.ReadFile(s.path("index"))
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
	f, err := os.CreateTemp(s.dir, ".index.tmp-*")
	if err != nil {
		return noSpace(err)
	}
	err = x.encode(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), s.path("index"))
	}
	if err != nil {
		os.Remove(f.Name())
		return noSpace(fmt.Errorf("write index: %w", err))
	}
	return nil
}
