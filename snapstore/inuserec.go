package snapstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"rambar/tree"

	"rambar/internal/atomicfile"
)

// InUse says that a save found the disk changing throughout: its snapshot
// was "taken while in use" (settle.go), so the files in it may not belong
// together (a database and its journal copied at different moments, each
// a version that existed). Paths are some of those that changed during the
// save (at most inUseMax, in order); Count is how many did.
type InUse struct {
	Paths []string `json:"paths"`
	Count int      `json:"count"`
}

// The label of a snapshot taken while in use is kept beside its manifest,
// snapshots/ID.inuse, written before the commit and flushed with it, and
// read as everything in a store is: bounded, checked, refused whole when
// damaged. A snapshot without one was consistent. Older RAMBars ignore it.
//
//	magic line, the snapshot's ID, the count, the number of paths named,
//	each path as the bytes it shares with the one before and the rest
const (
	InUseExt   = ".inuse"
	inUseMagic = "RAMBAR-INUSE-1\n"
)

// errBadInUse is a damaged in-use record.
var errBadInUse = errors.New("damaged in-use record")

// EncodeInUse is the record of snapshot id.
func EncodeInUse(id string, u *InUse) []byte {
	e := Encoder{B: []byte(inUseMagic)}
	e.Str(id)
	e.Uv(uint64(u.Count))
	e.paths(u.Paths)
	return e.B
}

// paths writes a count and the paths, each as the bytes it shares with
// the one before and the rest.
func (e *Encoder) paths(ps []string) {
	e.Uv(uint64(len(ps)))
	prev := ""
	for _, p := range ps {
		k := sharedPrefix(prev, p)
		e.Uv(uint64(k))
		e.Str(p[k:])
		prev = p
	}
}

// paths reads the n paths paths wrote after their count: ok when each is
// clean, in strict pathLess order after the one before.
func (d *Decoder) paths(n uint64) (ps []string, ok bool) {
	ps = make([]string, 0, n)
	prev := ""
	for i := uint64(0); i < n; i++ {
		k, rest := d.Uv(), d.Raw()
		if d.Bad || k > uint64(len(prev)) || int(k)+len(rest) > maxPath {
			return nil, false
		}
		p := prev[:k] + string(rest)
		if CheckPath(p) != nil || (i > 0 && !tree.PathLess(prev, p)) {
			return nil, false
		}
		ps, prev = append(ps, p), p
	}
	return ps, true
}

// decodeInUse reads the record of snapshot id and checks it: its ID, at
// most inUseMax clean paths in strict pathLess order, no fewer counted.
func decodeInUse(id string, b []byte) (*InUse, error) {
	d := &Decoder{B: b}
	d.Magic(inUseMagic)
	got, count, n := d.Str(), d.Uv(), d.Uv()
	if d.Bad || got != id || n > InUseMax || count < n || count > maxCount {
		return nil, errBadInUse
	}
	u := &InUse{Count: int(count)}
	var ok bool
	if u.Paths, ok = d.paths(n); !ok || !d.End() {
		return nil, errBadInUse
	}
	return u, nil
}

// WriteInUse writes the record of snapshot id (flushed by the save's
// flush before the commit: writeSnapshot).
func (s *Store) WriteInUse(id string, u *InUse) error {
	if err := os.MkdirAll(s.Path("snapshots"), 0o700); err != nil {
		return tree.NoSpace(err)
	}
	return tree.NoSpace(atomicfile.WriteFile(s.Path("snapshots", id+InUseExt), EncodeInUse(id, u), 0o600))
}

// InUse reads the record of snapshot id: nil when it has none (it was
// consistent).
func (s *Store) InUse(id string) (*InUse, error) {
	return readRecord(s, id, InUseExt, decodeInUse)
}

// readRecord reads the small record of snapshot id in the file ext beside
// it and decodes it: nil when there is none.
func readRecord[T any](s *Store, id, ext string, decode func(id string, b []byte) (*T, error)) (*T, error) {
	b, err := ReadBounded(s.Path("snapshots", id+ext), MaxSmall)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil {
		var r *T
		if r, err = decode(id, b); err == nil {
			return r, nil
		}
	}
	return nil, fmt.Errorf("read snapshot %s: %w", id, err)
}

// InUseMax is how many of the paths that changed during a save it names.
const InUseMax = 1000
