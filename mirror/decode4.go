package mirror

import (
	"fmt"
	"math"
	"rambar/tree"
	"time"
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

func (r *pathReader) read(d *decoder) string {
	k := d.uv()
	rest := d.raw()
	if d.bad || k > uint64(len(r.prev)) || int(k)+len(rest) > maxPath {
		d.fail(fmt.Errorf("bad path"))
		return ""
	}
	if r.budget -= int(k) + len(rest); r.budget < 0 {
		d.fail(fmt.Errorf("paths longer than the file allows"))
		return ""
	}
	r.buf = append(append(r.buf[:0], r.prev[:k]...), rest...)
	r.prev = string(r.buf)
	return r.prev
}

// decodeManifest4 reads a version 4 manifest after its magic line.
func decodeManifest4(d *decoder, entries bool) (*manifest, error) {
	m := &manifest{header: header{ID: d.str(), Created: time.Unix(0, d.sv()).UTC(), Files: int(d.uv()), Bytes: d.sv(), Base: d.str()}}
	saves := decodeSaves(d, &m.header)
	if err := checkedHeader(d, &m.header); err != nil {
		return nil, err
	}
	if !entries {
		return m, nil
	}
	paths := &pathReader{budget: 64<<20 + 64*len(d.b)}
	n := d.count(5)
	// Room for the entries an honest manifest of this size holds (about
	// 9 bytes each for small files); a count larger than that grows the
	// slice only as entries really decode, not on the count alone.
	m.Entries = make([]tree.Entry, 0, min(n, 1+len(d.b)/8))
	var st entryState
	for i := 0; i < n && !d.bad; i++ {
		m.Entries = append(m.Entries, decodeEntry4(d, paths, &st, saves))
	}
	if k := d.count(2); k > 0 {
		m.Removed = make([]string, 0, k)
		removed := &pathReader{budget: paths.budget}
		for j := 0; j < k && !d.bad; j++ {
			m.Removed = append(m.Removed, removed.read(d))
		}
	}
	return endManifest(d, m)
}

// decodeSaves reads the saves table into h.Refs and returns the saves in
// table order.
func decodeSaves(d *decoder, h *header) []string {
	n := d.count(2)
	saves := make([]string, 0, n)
	h.Refs = make(map[string][]uint32, n)
	for i := 0; i < n && !d.bad; i++ {
		s := d.str()
		if i > 0 && s <= saves[i-1] {
			d.fail(fmt.Errorf("saves table out of order"))
		}
		k := d.count(1)
		nums := make([]uint32, 0, k)
		v := uint64(0)
		for j := 0; j < k && !d.bad; j++ {
			st := d.uv()
			if j > 0 {
				st++
			}
			if st > math.MaxUint32 || v+st > math.MaxUint32 {
				d.fail(fmt.Errorf("bad object number"))
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
func decodeEntry4(d *decoder, paths *pathReader, st *entryState, saves []string) tree.Entry {
	x := tree.Entry{Path: paths.read(d)}
	bits := d.uv()
	if bits&^bitsAll != 0 || bits&bitObj != 0 && bits&bitPacked != 0 {
		d.fail(fmt.Errorf("%s: bad flags", x.Path))
	}
	x.Kind, x.NoOwner = tree.Kind(bits&bitKind), bits&bitNoOwner != 0
	x.Mode = st.mode
	if bits&bitSameMode == 0 {
		x.Mode = d.u32()
	}
	x.Size = d.sv()
	if bits&bitFarMTime != 0 {
		x.MTime = d.time()
	} else {
		x.MTime = addStep(st.mtime, d.sv())
	}
	switch {
	case bits&bitATimeIsM != 0:
		x.ATime = x.MTime
	case bits&bitFarATime != 0:
		x.ATime = d.time()
	default:
		x.ATime = addStep(x.MTime, d.sv())
	}
	x.UID, x.GID = st.uid, st.gid
	if bits&bitSameOwner == 0 {
		x.UID, x.GID = d.u32(), d.u32()
	}
	if bits&bitLink != 0 {
		x.Link = d.str()
	}
	if bits&bitHardLink != 0 {
		x.HardLink = d.str()
	}
	if bits&bitSparse != 0 {
		k := d.count(2)
		x.Extents = make([]tree.Extent, 0, k)
		end := int64(0)
		for j := 0; j < k && !d.bad; j++ {
			r := tree.Extent{Off: end + int64(d.uv()), Len: int64(d.uv())}
			x.Extents = append(x.Extents, r)
			end = r.Off + r.Len
		}
	}
	if bits&(bitObj|bitPacked) != 0 {
		i, num := d.uv(), d.u32()
		if i >= uint64(len(saves)) {
			d.fail(fmt.Errorf("%s: bad object: no save %d in the table", x.Path, i))
			return x
		}
		x.Obj = tree.ObjName{Save: saves[i], Num: num}
		if bits&bitPacked != 0 {
			from := int64(0)
			if st.packSave == i+1 && st.packNum == num {
				from = st.packEnd
			}
			x.Obj.Off, x.Obj.Packed = from+d.sv(), true
			st.packSave, st.packNum, st.packEnd = i+1, num, x.Obj.Off+x.Stored()
		}
	}
	if bits&bitXattr != 0 {
		k := d.count(2)
		if k == 0 {
			d.fail(fmt.Errorf("%s: bad xattrs", x.Path))
		}
		x.Xattr = make(map[string][]byte, k)
		for j := 0; j < k && !d.bad; j++ {
			key := d.str()
			v := d.raw()
			x.Xattr[key] = append(make([]byte, 0, len(v)), v...)
		}
	}
	st.path, st.mode, st.uid, st.gid, st.mtime = x.Path, x.Mode, x.UID, x.GID, x.MTime
	return x
}
