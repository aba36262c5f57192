package mirror

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"rambar/tree"
	"time"

	"golang.org/x/sys/unix"
)

// Manifests and the index are compact binary records, written by encoder
// and read by decoder: every number a varint, every string a uvarint length
// and bytes, after a magic line that names the format and its version.
// Reading checks that the file ends exactly where the records do, so a
// damaged file is refused.
//
// A manifest file:
//
//	version 1: magic, header (ID, created, files, bytes, object refs), entries
//	version 2: magic, header (ID, created, files, bytes, base, object refs),
//	           entries, removed paths
//	version 3: as version 2; each entry also has its access time, owner,
//	           group, flags (owner unknown: an entry carried over from
//	           version 1 or 2; sparse), hard link and data extents, and times are
//	           seconds and nanoseconds (any time a file system holds;
//	           version 1 and 2 kept nanoseconds in an int64, which ends in
//	           2262)
//	version 4: the same fields, smaller (codec4.go): each path as the bytes
//	           it shares with the one before and the rest, object
//	           references as numbers (a save of the header's table, the
//	           object, the offset in a pack), times as the step from the
//	           entry before, and what is the same as in the entry before
//	           (mode, owner) or its own modification time (access time)
//	           as a flag
//
// A manifest with a base is a delta: its entries are the paths added or
// changed since the base (a full manifest) and its removed paths those
// gone since. Version 1 and 2 files still load (their access time is the
// modification time; their owner is unknown, so a restore as root leaves
// the owner it makes).
//
// The index file's format is in indexcodec.go.
const (
	manifestMagic   = "RAMBAR-MANIFEST-4\n"
	manifestMagicV3 = "RAMBAR-MANIFEST-3\n"
	manifestMagicV2 = "RAMBAR-MANIFEST-2\n"
	manifestMagicV1 = "RAMBAR-MANIFEST-1\n"
)

// Entry flags: the owner was not recorded; the file is sparse (Extents
// set, perhaps to none: a file that is all hole).
const (
	flagNoOwner = 1 << iota
	flagSparse
)

var (
	errBadManifest = tree.ErrDamaged
	errBadIndex    = errors.New("bad index")
)

// encoder appends to b; with w set, flush hands what it holds to w (a
// manifest is written as it is encoded, not held whole).
type encoder struct {
	b   []byte
	w   io.Writer
	err error // the first error of w
}

// flush writes what e holds to its writer, if any.
func (e *encoder) flush() {
	if e.w == nil {
		return
	}
	if e.err == nil {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

func (e *encoder) uv(v uint64)    { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) sv(v int64)     { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) str(s string)   { e.uv(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bytes(p []byte) { e.uv(uint64(len(p))); e.b = append(e.b, p...) }

// decoder reads what encoder wrote; the first malformed field sets bad,
// and every later read then returns zero values.
type decoder struct {
	b   []byte
	bad bool
	why error // what was wrong, when known
}

// fail marks d bad because of why (the first reason is kept).
func (d *decoder) fail(why error) {
	if !d.bad {
		d.why = why
	}
	d.bad = true
}

// magic reads one of the magic lines (all of one length) and returns which
// (its index in magics), or -1.
func (d *decoder) magic(magics ...string) int {
	for i, m := range magics {
		if len(d.b) >= len(m) && string(d.b[:len(m)]) == m {
			d.b = d.b[len(m):]
			return i
		}
	}
	d.bad = true
	return -1
}

func (d *decoder) uv() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) sv() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) raw() []byte {
	n := d.uv()
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) str() string { return string(d.raw()) }

// fixed reads n bytes (no length before them).
func (d *decoder) fixed(n uint64) []byte {
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

// count reads a number of records, each at least min bytes long.
func (d *decoder) count(min int) int {
	n := d.uv()
	if d.bad || n > uint64(len(d.b)/min) {
		d.bad = true
		return 0
	}
	return int(n)
}

// end reports whether everything was read and nothing was malformed.
func (d *decoder) end() bool { return !d.bad && len(d.b) == 0 }

// checkedHeader is errBadManifest (with the reason) when the header d just
// read is malformed or does not check.
func checkedHeader(d *decoder, h *header) error {
	if d.bad {
		return errBadManifest
	}
	if err := checkHeader(h); err != nil {
		return fmt.Errorf("%w: %v", errBadManifest, err)
	}
	return nil
}

// decodeManifest reads a manifest; with entries false it stops after the
// header (listing and pruning need no more).
func decodeManifest(b []byte, entries bool) (*manifest, error) {
	d := &decoder{b: b}
	version := 4 - d.magic(manifestMagic, manifestMagicV3, manifestMagicV2, manifestMagicV1)
	if version == 4 {
		return decodeManifest4(d, entries)
	}
	m := &manifest{header: decodeHeader(d, version >= 2)}
	if err := checkedHeader(d, &m.header); err != nil {
		return nil, err
	}
	if !entries {
		return m, nil
	}
	n := d.count(8)
	m.Entries = make([]tree.Entry, 0, n)
	for i := 0; i < n && !d.bad; i++ {
		m.Entries = append(m.Entries, decodeEntry(d, version))
	}
	if version >= 2 {
		if k := d.count(1); k > 0 {
			m.Removed = make([]string, 0, k)
			for j := 0; j < k && !d.bad; j++ {
				m.Removed = append(m.Removed, d.str())
			}
		}
	}
	return endManifest(d, m)
}

// endManifest checks that d was read to its end without fault and m's
// entries are valid.
func endManifest(d *decoder, m *manifest) (*manifest, error) {
	if !d.end() {
		if d.why != nil {
			return nil, fmt.Errorf("%w: %v", errBadManifest, d.why)
		}
		return nil, errBadManifest
	}
	if err := checkEntries(m); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadManifest, err)
	}
	return m, nil
}

func decodeHeader(d *decoder, v2 bool) header {
	h := header{ID: d.str(), Created: time.Unix(0, d.sv()).UTC(), Files: int(d.uv()), Bytes: d.sv()}
	if v2 {
		h.Base = d.str()
	}
	h.Refs = map[string][]uint32{}
	for i, n := 0, d.count(2); i < n && !d.bad; i++ {
		s := d.str()
		k := d.count(1)
		nums := make([]uint32, 0, k)
		for j := 0; j < k && !d.bad; j++ {
			nums = append(nums, uint32(d.uv()))
		}
		h.Refs[s] = nums
	}
	return h
}

func (d *decoder) u32() uint32 {
	v := d.uv()
	if v > math.MaxUint32 {
		d.bad = true
	}
	return uint32(v)
}

func (d *decoder) time() unix.Timespec {
	t := unix.Timespec{Sec: d.sv(), Nsec: int64(d.uv())}
	if t.Nsec >= 1e9 {
		d.bad = true
	}
	return t
}

// obj reads an object reference as text (none: empty).
func (d *decoder) obj() tree.ObjName {
	s := d.str()
	if s == "" {
		return tree.ObjName{}
	}
	o, err := parseObj(s)
	if err != nil {
		d.fail(err)
	}
	return o
}

func decodeEntry(d *decoder, version int) tree.Entry {
	x := tree.Entry{Path: d.str(), Kind: tree.Kind(d.uv()), Mode: uint32(d.uv()), Size: d.sv()}
	if version < 3 {
		x.MTime = unix.NsecToTimespec(d.sv())
		x.ATime, x.NoOwner = x.MTime, true
		x.Link = d.str()
		x.Obj = d.obj()
	} else {
		x.MTime, x.ATime = d.time(), d.time()
		x.UID, x.GID = d.u32(), d.u32()
		flags := d.uv()
		x.NoOwner = flags&flagNoOwner != 0
		if flags&^(flagNoOwner|flagSparse) != 0 {
			d.bad = true
		}
		x.Link, x.HardLink = d.str(), d.str()
		x.Obj = d.obj()
		if k := d.count(2); k > 0 || flags&flagSparse != 0 {
			x.Extents = make([]tree.Extent, 0, k)
			for j := 0; j < k && !d.bad; j++ {
				x.Extents = append(x.Extents, tree.Extent{Off: int64(d.uv()), Len: int64(d.uv())})
			}
		}
	}
	if k := d.count(2); k > 0 {
		x.Xattr = make(map[string][]byte, k)
		for j := 0; j < k && !d.bad; j++ {
			key := d.str()
			v := d.raw()
			x.Xattr[key] = append(make([]byte, 0, len(v)), v...)
		}
	}
	return x
}
