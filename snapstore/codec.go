package snapstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"time"

	"rambar/tree"

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
	ErrBadManifest = tree.ErrDamaged
	errBadIndex    = errors.New("bad index")
)

// Encoder appends to b; with w set, flush hands what it holds to w (a
// manifest is written as it is encoded, not held whole).
type Encoder struct {
	B   []byte
	w   io.Writer
	err error // the first error of w
}

// flush writes what e holds to its writer, if any.
func (e *Encoder) flush() {
	if e.w == nil {
		return
	}
	if e.err == nil {
		_, e.err = e.w.Write(e.B)
	}
	e.B = e.B[:0]
}

// Uv appends v as an unsigned varint.
func (e *Encoder) Uv(v uint64) { e.B = binary.AppendUvarint(e.B, v) }

// Sv appends v as a signed varint.
func (e *Encoder) Sv(v int64) { e.B = binary.AppendVarint(e.B, v) }

// Str appends s with its length first.
func (e *Encoder) Str(s string)   { e.Uv(uint64(len(s))); e.B = append(e.B, s...) }
func (e *Encoder) bytes(p []byte) { e.Uv(uint64(len(p))); e.B = append(e.B, p...) }

// PutCRC appends the CRC-32 (IEEE, in four bytes, little-endian) of what
// was written from start on: the check of a part of a file, or of all of
// it (0), which CRCOK reads.
func (e *Encoder) PutCRC(start int) {
	e.B = binary.LittleEndian.AppendUint32(e.B, crc32.ChecksumIEEE(e.B[start:]))
}

// CRCOK reports whether b ends with the CRC-32 of all that comes before it
// (Encoder.PutCRC from 0).
func CRCOK(b []byte) bool {
	return len(b) >= 4 && crc32.ChecksumIEEE(b[:len(b)-4]) == binary.LittleEndian.Uint32(b[len(b)-4:])
}

// Decoder reads what encoder wrote; the first malformed field sets bad,
// and every later read then returns zero values.
type Decoder struct {
	B   []byte
	Bad bool
	Why error // what was wrong, when known
}

// Fail marks d bad because of why (the first reason is kept).
func (d *Decoder) Fail(why error) {
	if !d.Bad {
		d.Why = why
	}
	d.Bad = true
}

// Magic reads one of the magic lines (all of one length) and returns which
// (its index in magics), or -1.
func (d *Decoder) Magic(magics ...string) int {
	for i, m := range magics {
		if len(d.B) >= len(m) && string(d.B[:len(m)]) == m {
			d.B = d.B[len(m):]
			return i
		}
	}
	d.Bad = true
	return -1
}

// Uv reads an unsigned varint.
func (d *Decoder) Uv() uint64 {
	v, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.Bad = true
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Sv reads a signed varint.
func (d *Decoder) Sv() int64 {
	v, n := binary.Varint(d.B)
	if n <= 0 {
		d.Bad = true
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Raw reads bytes written with their length first.
func (d *Decoder) Raw() []byte {
	n := d.Uv()
	if d.Bad || n > uint64(len(d.B)) {
		d.Bad = true
		return nil
	}
	p := d.B[:n:n]
	d.B = d.B[n:]
	return p
}

// Str reads a string written with its length first.
func (d *Decoder) Str() string { return string(d.Raw()) }

// fixed reads n bytes (no length before them).
func (d *Decoder) fixed(n uint64) []byte {
	if d.Bad || n > uint64(len(d.B)) {
		d.Bad = true
		return nil
	}
	p := d.B[:n:n]
	d.B = d.B[n:]
	return p
}

// Count reads a number of records, each at least min bytes long.
func (d *Decoder) Count(min int) int {
	n := d.Uv()
	if d.Bad || n > uint64(len(d.B)/min) {
		d.Bad = true
		return 0
	}
	return int(n)
}

// End reports whether everything was read and nothing was malformed.
func (d *Decoder) End() bool { return !d.Bad && len(d.B) == 0 }

// checkedHeader is errBadManifest (with the reason) when the header d just
// read is malformed or does not check.
func checkedHeader(d *Decoder, h *Header) error {
	if d.Bad {
		return ErrBadManifest
	}
	if err := CheckHeader(h); err != nil {
		return fmt.Errorf("%w: %v", ErrBadManifest, err)
	}
	return nil
}

// decodeManifest reads a manifest; with entries false it stops after the
// header (listing and pruning need no more).
func decodeManifest(b []byte, entries bool) (*Manifest, error) {
	d := &Decoder{B: b}
	version := 4 - d.Magic(manifestMagic, manifestMagicV3, manifestMagicV2, manifestMagicV1)
	if version == 4 {
		return decodeManifest4(d, entries)
	}
	m := &Manifest{Header: decodeHeader(d, version >= 2)}
	if err := checkedHeader(d, &m.Header); err != nil {
		return nil, err
	}
	if !entries {
		return m, nil
	}
	n := d.Count(8)
	m.Entries = make([]tree.Entry, 0, n)
	for i := 0; i < n && !d.Bad; i++ {
		m.Entries = append(m.Entries, decodeEntry(d, version))
	}
	if version >= 2 {
		if k := d.Count(1); k > 0 {
			m.Removed = make([]string, 0, k)
			for j := 0; j < k && !d.Bad; j++ {
				m.Removed = append(m.Removed, d.Str())
			}
		}
	}
	return endManifest(d, m)
}

// endManifest checks that d was read to its end without fault and m's
// entries are valid.
func endManifest(d *Decoder, m *Manifest) (*Manifest, error) {
	if !d.End() {
		if d.Why != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadManifest, d.Why)
		}
		return nil, ErrBadManifest
	}
	if err := checkEntries(m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadManifest, err)
	}
	return m, nil
}

func decodeHeader(d *Decoder, v2 bool) Header {
	h := Header{ID: d.Str(), Created: time.Unix(0, d.Sv()).UTC(), Files: int(d.Uv()), Bytes: d.Sv()}
	if v2 {
		h.Base = d.Str()
	}
	h.Refs = map[string][]uint32{}
	for i, n := 0, d.Count(2); i < n && !d.Bad; i++ {
		s := d.Str()
		k := d.Count(1)
		nums := make([]uint32, 0, k)
		for j := 0; j < k && !d.Bad; j++ {
			nums = append(nums, uint32(d.Uv()))
		}
		h.Refs[s] = nums
	}
	return h
}

// U32 reads four bytes, little-endian (a CRC).
func (d *Decoder) U32() uint32 {
	v := d.Uv()
	if v > math.MaxUint32 {
		d.Bad = true
	}
	return uint32(v)
}

func (d *Decoder) time() unix.Timespec {
	t := unix.Timespec{Sec: d.Sv(), Nsec: int64(d.Uv())}
	if t.Nsec >= 1e9 {
		d.Bad = true
	}
	return t
}

// obj reads an object reference as text (none: empty).
func (d *Decoder) obj() tree.ObjName {
	s := d.Str()
	if s == "" {
		return tree.ObjName{}
	}
	o, err := ParseObj(s)
	if err != nil {
		d.Fail(err)
	}
	return o
}

func decodeEntry(d *Decoder, version int) tree.Entry {
	x := tree.Entry{Path: d.Str(), Kind: tree.Kind(d.Uv()), Mode: uint32(d.Uv()), Size: d.Sv()}
	if version < 3 {
		x.MTime = unix.NsecToTimespec(d.Sv())
		x.ATime, x.NoOwner = x.MTime, true
		x.Link = d.Str()
		x.Obj = d.obj()
	} else {
		x.MTime, x.ATime = d.time(), d.time()
		x.UID, x.GID = d.U32(), d.U32()
		flags := d.Uv()
		x.NoOwner = flags&flagNoOwner != 0
		if flags&^(flagNoOwner|flagSparse) != 0 {
			d.Bad = true
		}
		x.Link, x.HardLink = d.Str(), d.Str()
		x.Obj = d.obj()
		if k := d.Count(2); k > 0 || flags&flagSparse != 0 {
			x.Extents = make([]tree.Extent, 0, k)
			for j := 0; j < k && !d.Bad; j++ {
				x.Extents = append(x.Extents, tree.Extent{Off: int64(d.Uv()), Len: int64(d.Uv())})
			}
		}
	}
	if k := d.Count(2); k > 0 {
		x.Xattr = make(map[string][]byte, k)
		for j := 0; j < k && !d.Bad; j++ {
			key := d.Str()
			v := d.Raw()
			x.Xattr[key] = append(make([]byte, 0, len(v)), v...)
		}
	}
	return x
}
