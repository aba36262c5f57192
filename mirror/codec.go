package mirror

import (
	"encoding/binary"
	"errors"
	"slices"
	"time"
)

// A manifest file is a compact binary record:
//
//	version 1: magic, header (ID, created, files, bytes, object refs), entries
//	version 2: magic, header (ID, created, files, bytes, base, object refs),
//	           entries, removed paths
//
// A version 2 manifest with a base is a delta: its entries are the paths
// added or changed since the base (a full manifest) and its removed paths
// those gone since. Every string is a uvarint length and bytes. Reading
// checks that the file ends exactly where the records do, so a damaged file
// is refused. Version 1 files (written before deltas existed) still load.
const (
	manifestMagic   = "RAMBAR-MANIFEST-2\n"
	manifestMagicV1 = "RAMBAR-MANIFEST-1\n"
)

var errBadManifest = errors.New("damaged snapshot manifest")

type encoder struct{ b []byte }

func (e *encoder) uv(v uint64)    { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) sv(v int64)     { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) str(s string)   { e.uv(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bytes(p []byte) { e.uv(uint64(len(p))); e.b = append(e.b, p...) }

type decoder struct {
	b   []byte
	bad bool
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

func encodeManifest(m *manifest) []byte {
	e := &encoder{b: make([]byte, 0, 64+len(m.Entries)*48)}
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
		x := &m.Entries[i]
		e.str(x.Path)
		e.uv(uint64(x.Kind))
		e.uv(uint64(x.Mode))
		e.sv(x.Size)
		e.sv(x.MTime)
		e.str(x.Link)
		e.str(x.Obj)
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
	e.uv(uint64(len(m.Removed)))
	for _, p := range m.Removed {
		e.str(p)
	}
	return e.b
}

// decodeManifest reads a manifest; with entries false it stops after the
// header (listing and pruning need no more).
func decodeManifest(b []byte, entries bool) (*manifest, error) {
	v2 := len(b) >= len(manifestMagic) && string(b[:len(manifestMagic)]) == manifestMagic
	if !v2 && (len(b) < len(manifestMagicV1) || string(b[:len(manifestMagicV1)]) != manifestMagicV1) {
		return nil, errBadManifest
	}
	d := &decoder{b: b[len(manifestMagic):]}
	m := &manifest{}
	m.ID = d.str()
	m.Created = time.Unix(0, d.sv()).UTC()
	m.Files = int(d.uv())
	m.Bytes = d.sv()
	if v2 {
		m.Base = d.str()
	}
	m.Refs = map[string][]uint32{}
	for i, n := 0, d.count(2); i < n && !d.bad; i++ {
		s := d.str()
		k := d.count(1)
		nums := make([]uint32, 0, k)
		for j := 0; j < k && !d.bad; j++ {
			nums = append(nums, uint32(d.uv()))
		}
		m.Refs[s] = nums
	}
	if d.bad {
		return nil, errBadManifest
	}
	if !entries {
		return m, nil
	}
	n := d.count(8)
	m.Entries = make([]Entry, 0, n)
	for i := 0; i < n && !d.bad; i++ {
		x := Entry{Path: d.str(), Kind: Kind(d.uv()), Mode: uint32(d.uv()), Size: d.sv(), MTime: d.sv(), Link: d.str(), Obj: d.str()}
		if k := d.count(2); k > 0 {
			x.Xattr = make(map[string][]byte, k)
			for j := 0; j < k && !d.bad; j++ {
				key := d.str()
				v := d.raw()
				x.Xattr[key] = append(make([]byte, 0, len(v)), v...)
			}
		}
		m.Entries = append(m.Entries, x)
	}
	if v2 {
		if k := d.count(1); k > 0 {
			m.Removed = make([]string, 0, k)
			for j := 0; j < k && !d.bad; j++ {
				m.Removed = append(m.Removed, d.str())
			}
		}
	}
	if d.bad || len(d.b) != 0 {
		return nil, errBadManifest
	}
	return m, nil
}
