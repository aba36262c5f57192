package mirror

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
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
//
// A manifest with a base is a delta: its entries are the paths added or
// changed since the base (a full manifest) and its removed paths those
// gone since. Version 1 and 2 files still load (their access time is the
// modification time; their owner is unknown, so a restore as root leaves
// the owner it makes).
//
// The index file's format is in indexcodec.go.
const (
	manifestMagic   = "RAMBAR-MANIFEST-3\n"
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
	errBadManifest = errors.New("damaged snapshot manifest")
	errBadIndex    = errors.New("bad index")
)

type encoder struct{ b []byte }

func (e *encoder) uv(v uint64)    { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) sv(v int64)     { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) str(s string)   { e.uv(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bytes(p []byte) { e.uv(uint64(len(p))); e.b = append(e.b, p...) }

// decoder reads what encoder wrote; the first malformed field sets bad,
// and every later read then returns zero values.
type decoder struct {
	b   []byte
	bad bool
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

// encodeManifest writes m in the current format.
func encodeManifest(m *manifest) []byte {
	e := &encoder{b: make([]byte, 0, manifestCap(m))}
	e.b = append(e.b, manifestMagic...)
	e.str(m.ID)
	e.sv(m.Created.UnixNano())
	e.uv(uint64(m.Files))
	e.sv(m.Bytes)
	e.str(m.Base)
	saves := make([]string, 0, len(m.Refs))
	for s := range m.Refs {
		saves = append(saves, s)
	}
	slices.Sort(saves)
	e.uv(uint64(len(saves)))
	for _, s := range saves {
		e.str(s)
		e.uv(uint64(len(m.Refs[s])))
		for _, n := range m.Refs[s] {
			e.uv(uint64(n))
		}
	}
	e.uv(uint64(len(m.Entries)))
	for i := range m.Entries {
		encodeEntry(e, &m.Entries[i])
	}
	e.uv(uint64(len(m.Removed)))
	for _, p := range m.Removed {
		e.str(p)
	}
	return e.b
}

// manifestCap is about the bytes m encodes to, so that the encoder's
// buffer is made once at its size: grown by doubling, a manifest of
// 200,000 entries left twice its size in garbage behind, a save's largest
// allocation.
func manifestCap(m *manifest) int {
	n := 256 + 16*len(m.Removed)
	for _, r := range m.Refs {
		n += 32 + 5*len(r)
	}
	for i := range m.Entries {
		x := &m.Entries[i]
		n += 48 + len(x.Path) + len(x.Link) + len(x.HardLink) + len(x.Obj) + 20*len(x.Extents)
		for k, v := range x.Xattr {
			n += 10 + len(k) + len(v)
		}
	}
	for _, p := range m.Removed {
		n += len(p)
	}
	return n
}

func (e *encoder) time(t unix.Timespec) { e.sv(int64(t.Sec)); e.uv(uint64(t.Nsec)) }

func encodeEntry(e *encoder, x *Entry) {
	e.str(x.Path)
	e.uv(uint64(x.Kind))
	e.uv(uint64(x.Mode))
	e.sv(x.Size)
	e.time(x.MTime)
	e.time(x.ATime)
	e.uv(uint64(x.UID))
	e.uv(uint64(x.GID))
	flags := uint64(0)
	if x.noOwner {
		flags |= flagNoOwner
	}
	if x.Extents != nil {
		flags |= flagSparse // even with no extent: a file all hole
	}
	e.uv(flags)
	e.str(x.Link)
	e.str(x.HardLink)
	e.str(x.Obj)
	e.uv(uint64(len(x.Extents)))
	for _, r := range x.Extents {
		e.uv(uint64(r.Off))
		e.uv(uint64(r.Len))
	}
	keys := make([]string, 0, len(x.Xattr))
	for k := range x.Xattr {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.uv(uint64(len(keys)))
	for _, k := range keys {
		e.str(k)
		e.bytes(x.Xattr[k])
	}
}

// decodeManifest reads a manifest; with entries false it stops after the
// header (listing and pruning need no more).
func decodeManifest(b []byte, entries bool) (*manifest, error) {
	d := &decoder{b: b}
	version := 3 - d.magic(manifestMagic, manifestMagicV2, manifestMagicV1)
	m := &manifest{header: decodeHeader(d, version >= 2)}
	if d.bad {
		return nil, errBadManifest
	}
	if err := checkHeader(&m.header); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadManifest, err)
	}
	if !entries {
		return m, nil
	}
	n := d.count(8)
	m.Entries = make([]Entry, 0, n)
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
	if !d.end() {
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

func decodeEntry(d *decoder, version int) Entry {
	x := Entry{Path: d.str(), Kind: Kind(d.uv()), Mode: uint32(d.uv()), Size: d.sv()}
	if version < 3 {
		x.MTime = unix.NsecToTimespec(d.sv())
		x.ATime, x.noOwner = x.MTime, true
		x.Link, x.Obj = d.str(), d.str()
	} else {
		x.MTime, x.ATime = d.time(), d.time()
		x.UID, x.GID = d.u32(), d.u32()
		flags := d.uv()
		x.noOwner = flags&flagNoOwner != 0
		if flags&^(flagNoOwner|flagSparse) != 0 {
			d.bad = true
		}
		x.Link, x.HardLink, x.Obj = d.str(), d.str(), d.str()
		if k := d.count(2); k > 0 || flags&flagSparse != 0 {
			x.Extents = make([]Extent, 0, k)
			for j := 0; j < k && !d.bad; j++ {
				x.Extents = append(x.Extents, Extent{Off: int64(d.uv()), Len: int64(d.uv())})
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
