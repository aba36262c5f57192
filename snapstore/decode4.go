package snapstore

import (
	"fmt"
	"math"
	"time"

	"rambar/tree"
)

// Reading a version 4 manifest (codec4.go has the format).

// pathReader reads paths written as a shared prefix and the rest, within
// a budget of bytes: a crafted file of short steps must not make paths of
// far more bytes than it has.
type pathReader struct {
	prev   string
	buf    []byte
	budget int
}

func (r *pathReader) read(d *Decoder) string {
	k := d.Uv()
	rest := d.Raw()
	if d.Bad || k > uint64(len(r.prev)) || int(k)+len(rest) > maxPath {
		d.Fail(fmt.Errorf("bad path"))
		return ""
	}
	if r.budget -= int(k) + len(rest); r.budget < 0 {
		d.Fail(fmt.Errorf("paths longer than the file allows"))
		return ""
	}
	r.buf = append(append(r.buf[:0], r.prev[:k]...), rest...)
	r.prev = string(r.buf)
	return r.prev
}

// decodeManifest4 reads a version 4 manifest after its magic line.
func decodeManifest4(d *Decoder, entries bool) (*Manifest, error) {
	m := &Manifest{Header: Header{ID: d.Str(), Created: time.Unix(0, d.Sv()).UTC(), Files: int(d.Uv()), Bytes: d.Sv(), Base: d.Str()}}
	saves := decodeSaves(d, &m.Header)
	if err := checkedHeader(d, &m.Header); err != nil {
		return nil, err
	}
	if !entries {
		return m, nil
	}
	paths := &pathReader{budget: 64<<20 + 64*len(d.B)}
	n := d.Count(5)
	// Room for the entries an honest manifest of this size holds (about
	// 9 bytes each for small files); a count larger than that grows the
	// slice only as entries really decode, not on the count alone.
	m.Entries = make([]tree.Entry, 0, min(n, 1+len(d.B)/8))
	var st entryState
	for i := 0; i < n && !d.Bad; i++ {
		m.Entries = append(m.Entries, decodeEntry4(d, paths, &st, saves))
	}
	if k := d.Count(2); k > 0 {
		m.Removed = make([]string, 0, k)
		removed := &pathReader{budget: paths.budget}
		for j := 0; j < k && !d.Bad; j++ {
			m.Removed = append(m.Removed, removed.read(d))
		}
	}
	return endManifest(d, m)
}

// decodeSaves reads the saves table into h.Refs and returns the saves in
// table order.
func decodeSaves(d *Decoder, h *Header) []string {
	n := d.Count(2)
	saves := make([]string, 0, n)
	h.Refs = make(map[string][]uint32, n)
	for i := 0; i < n && !d.Bad; i++ {
		s := d.Str()
		if i > 0 && s <= saves[i-1] {
			d.Fail(fmt.Errorf("saves table out of order"))
		}
		k := d.Count(1)
		nums := make([]uint32, 0, k)
		v := uint64(0)
		for j := 0; j < k && !d.Bad; j++ {
			st := d.Uv()
			if j > 0 {
				st++
			}
			if st > math.MaxUint32 || v+st > math.MaxUint32 {
				d.Fail(fmt.Errorf("bad object number"))
			}
			v += st
			nums = append(nums, uint32(v))
		}
		saves = append(saves, s)
		h.Refs[s] = nums
	}
	return saves
}

// decodeEntry4 reads one entry, st being the entry before's state.
func decodeEntry4(d *Decoder, paths *pathReader, st *entryState, saves []string) tree.Entry {
	x := tree.Entry{Path: paths.read(d)}
	bits := d.Uv()
	if bits&^bitsAll != 0 || bits&bitObj != 0 && bits&bitPacked != 0 {
		d.Fail(fmt.Errorf("%s: bad flags", x.Path))
	}
	x.Kind, x.NoOwner = tree.Kind(bits&bitKind), bits&bitNoOwner != 0
	x.Mode = st.mode
	if bits&bitSameMode == 0 {
		x.Mode = d.U32()
	}
	x.Size = d.Sv()
	if bits&bitFarMTime != 0 {
		x.MTime = d.time()
	} else {
		x.MTime = addStep(st.mtime, d.Sv())
	}
	switch {
	case bits&bitATimeIsM != 0:
		x.ATime = x.MTime
	case bits&bitFarATime != 0:
		x.ATime = d.time()
	default:
		x.ATime = addStep(x.MTime, d.Sv())
	}
	x.UID, x.GID = st.uid, st.gid
	if bits&bitSameOwner == 0 {
		x.UID, x.GID = d.U32(), d.U32()
	}
	if bits&bitLink != 0 {
		x.Link = d.Str()
	}
	if bits&bitHardLink != 0 {
		x.HardLink = d.Str()
	}
	if bits&bitSparse != 0 {
		k := d.Count(2)
		x.Extents = make([]tree.Extent, 0, k)
		end := int64(0)
		for j := 0; j < k && !d.Bad; j++ {
			r := tree.Extent{Off: end + int64(d.Uv()), Len: int64(d.Uv())}
			x.Extents = append(x.Extents, r)
			end = r.Off + r.Len
		}
	}
	if bits&(bitObj|bitPacked) != 0 {
		i, num := d.Uv(), d.U32()
		if i >= uint64(len(saves)) {
			d.Fail(fmt.Errorf("%s: bad object: no save %d in the table", x.Path, i))
			return x
		}
		x.Obj = tree.ObjName{Save: saves[i], Num: num}
		if bits&bitPacked != 0 {
			from := int64(0)
			if st.packSave == i+1 && st.packNum == num {
				from = st.packEnd
			}
			x.Obj.Off, x.Obj.Packed = from+d.Sv(), true
			st.packSave, st.packNum, st.packEnd = i+1, num, x.Obj.Off+x.Stored()
		}
	}
	if bits&bitXattr != 0 {
		k := d.Count(2)
		if k == 0 {
			d.Fail(fmt.Errorf("%s: bad xattrs", x.Path))
		}
		x.Xattr = make(map[string][]byte, k)
		for j := 0; j < k && !d.Bad; j++ {
			key := d.Str()
			v := d.Raw()
			x.Xattr[key] = append(make([]byte, 0, len(v)), v...)
		}
	}
	st.path, st.mode, st.uid, st.gid, st.mtime = x.Path, x.Mode, x.UID, x.GID, x.MTime
	return x
}
