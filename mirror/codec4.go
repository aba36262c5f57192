package mirror

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// A version 4 manifest (see codec.go) holds the fields of version 3 in
// fewer bytes, as trees of many small files made manifests larger than
// the files: after the magic line,
//
//	header:  ID, created, files, bytes, base; the saves table (sorted
//	         IDs, each with the numbers of its objects the entries use,
//	         as steps)
//	entries: count, then per entry: the path as the count of bytes it
//	         shares with the path before and the rest; bits (kind and
//	         the flags below); mode (unless the same as the entry
//	         before's); size; modification time as the step in
//	         nanoseconds from the entry before's (or, far, seconds and
//	         nanoseconds); access time as the step from the entry's own
//	         modification time (none when equal; or far); owner and group
//	         (unless the same as before); link target; hard link; extents
//	         (each as the gap since the one before and its length); the
//	         object (the save's place in the table, its number, and for a
//	         pack the offset as the step from where the previous file of
//	         the same pack ended); xattrs
//	removed: count, then each path as the entries' paths are
//
// Entries are written one by one into a buffer flushed to the file as it
// fills, so a save never holds its manifest whole.
const (
	bitKind      = 7 // bits 0-2: the kind
	bitSameMode  = 1 << 3
	bitSameOwner = 1 << 4
	bitATimeIsM  = 1 << 5 // access time = modification time
	bitPacked    = 1 << 6 // a range of a pack
	bitNoOwner   = 1 << 7
	bitSparse    = 1 << 8 // extents follow (perhaps none)
	bitFarMTime  = 1 << 9
	bitFarATime  = 1 << 10
	bitXattr     = 1 << 11
	bitLink      = 1 << 12
	bitHardLink  = 1 << 13
	bitObj       = 1 << 14 // a whole object
	bitsAll      = 1<<15 - 1
)

// flushAt is how much an encoder with a writer holds before it writes.
const flushAt = 64 << 10

// manifestWriter encodes a version 4 manifest entry by entry.
type manifestWriter struct {
	e     encoder
	saves map[string]uint64 // place of each save in the table
	left  int               // entries still to come
	prev  entryState
}

// entryState is what an entry is encoded against: the entry before's.
type entryState struct {
	path     string
	mode     uint32
	uid, gid uint32
	mtime    unix.Timespec
	// the pack the entry before was in (save place + 1; 0: none) and
	// where its bytes ended
	packSave uint64
	packNum  uint32
	packEnd  int64
}

// newManifestWriter starts a manifest of n entries with header h (whose
// Refs must name every save the entries use), writing to w (nil: kept in
// the encoder's buffer).
func newManifestWriter(w io.Writer, h *header, n int) *manifestWriter {
	mw := &manifestWriter{e: encoder{w: w, b: make([]byte, 0, flushAt+4096)}, saves: map[string]uint64{}, left: n}
	e := &mw.e
	e.b = append(e.b, manifestMagic...)
	e.str(h.ID)
	e.sv(h.Created.UnixNano())
	e.uv(uint64(h.Files))
	e.sv(h.Bytes)
	e.str(h.Base)
	saves := make([]string, 0, len(h.Refs))
	for s := range h.Refs {
		saves = append(saves, s)
	}
	slices.Sort(saves)
	e.uv(uint64(len(saves)))
	for i, s := range saves {
		mw.saves[s] = uint64(i)
		nums := slices.Clone(h.Refs[s])
		slices.Sort(nums)
		nums = slices.Compact(nums)
		e.str(s)
		e.uv(uint64(len(nums)))
		for j, n := range nums {
			if j == 0 {
				e.uv(uint64(n))
			} else {
				e.uv(uint64(n - nums[j-1] - 1))
			}
		}
	}
	e.uv(uint64(n))
	return mw
}

// step is t as the step in nanoseconds from from, when near enough.
func step(t, from unix.Timespec) (int64, bool) {
	ds := t.Sec - from.Sec
	if t.Nsec < 0 || t.Nsec >= 1e9 || from.Nsec < 0 || from.Nsec >= 1e9 || ds > 1<<32 || ds < -(1<<32) {
		return 0, false
	}
	return ds*1e9 + (t.Nsec - from.Nsec), true
}

// addStep is from moved by d nanoseconds (from's nanoseconds in range).
func addStep(from unix.Timespec, d int64) unix.Timespec {
	n := from.Nsec + d
	s, r := n/1e9, n%1e9
	if r < 0 {
		r += 1e9
		s--
	}
	return unix.Timespec{Sec: from.Sec + s, Nsec: r}
}

func (e *encoder) time(t unix.Timespec) { e.sv(int64(t.Sec)); e.uv(uint64(t.Nsec)) }

// sharedPrefix is how many leading bytes a and b share.
func sharedPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// entry encodes x, the next entry.
func (mw *manifestWriter) entry(x *Entry) error {
	if mw.left--; mw.left < 0 {
		return fmt.Errorf("encode manifest: more entries than announced")
	}
	e, p := &mw.e, &mw.prev
	bits := uint64(x.Kind) & bitKind
	flag := func(on bool, b uint64) {
		if on {
			bits |= b
		}
	}
	mstep, mnear := step(x.MTime, p.mtime)
	astep, anear := step(x.ATime, x.MTime)
	save, known := mw.saves[x.Obj.Save]
	if !x.Obj.none() && !known {
		return fmt.Errorf("encode manifest: object %s of a save not in the header", x.Obj)
	}
	flag(x.Mode == p.mode, bitSameMode)
	flag(x.UID == p.uid && x.GID == p.gid, bitSameOwner)
	flag(x.ATime == x.MTime, bitATimeIsM)
	flag(!x.Obj.none() && x.Obj.Packed, bitPacked)
	flag(!x.Obj.none() && !x.Obj.Packed, bitObj)
	flag(x.noOwner, bitNoOwner)
	flag(x.Extents != nil, bitSparse)
	flag(!mnear, bitFarMTime)
	flag(x.ATime != x.MTime && !anear, bitFarATime)
	flag(len(x.Xattr) > 0, bitXattr)
	flag(x.Link != "", bitLink)
	flag(x.HardLink != "", bitHardLink)
	k := sharedPrefix(p.path, x.Path)
	e.uv(uint64(k))
	e.str(x.Path[k:])
	e.uv(bits)
	if bits&bitSameMode == 0 {
		e.uv(uint64(x.Mode))
	}
	e.sv(x.Size)
	if mnear {
		e.sv(mstep)
	} else {
		e.time(x.MTime)
	}
	switch {
	case bits&bitATimeIsM != 0:
	case anear:
		e.sv(astep)
	default:
		e.time(x.ATime)
	}
	if bits&bitSameOwner == 0 {
		e.uv(uint64(x.UID))
		e.uv(uint64(x.GID))
	}
	if bits&bitLink != 0 {
		e.str(x.Link)
	}
	if bits&bitHardLink != 0 {
		e.str(x.HardLink)
	}
	if bits&bitSparse != 0 {
		e.uv(uint64(len(x.Extents)))
		end := int64(0)
		for _, r := range x.Extents {
			e.uv(uint64(r.Off - end))
			e.uv(uint64(r.Len))
			end = r.Off + r.Len
		}
	}
	if !x.Obj.none() {
		e.uv(save)
		e.uv(uint64(x.Obj.Num))
		if x.Obj.Packed {
			from := int64(0)
			if p.packSave == save+1 && p.packNum == x.Obj.Num {
				from = p.packEnd
			}
			e.sv(x.Obj.Off - from)
			p.packSave, p.packNum, p.packEnd = save+1, x.Obj.Num, x.Obj.Off+x.stored()
		}
	}
	if bits&bitXattr != 0 {
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
	p.path, p.mode, p.uid, p.gid, p.mtime = x.Path, x.Mode, x.UID, x.GID, x.MTime
	if len(e.b) >= flushAt {
		e.flush()
	}
	return e.err
}

// finish writes the removed paths (pathLess order) and the rest of the
// buffer.
func (mw *manifestWriter) finish(removed []string) error {
	if mw.left != 0 {
		return fmt.Errorf("encode manifest: %d entries missing", mw.left)
	}
	e := &mw.e
	e.uv(uint64(len(removed)))
	prev := ""
	for _, r := range removed {
		k := sharedPrefix(prev, r)
		e.uv(uint64(k))
		e.str(r[k:])
		prev = r
		if len(e.b) >= flushAt {
			e.flush()
		}
	}
	e.flush()
	return e.err
}

// encodeManifest is m in the current format. Saves its entries use that
// m.Refs lacks are added to the table.
func encodeManifest(m *manifest) []byte {
	h := m.header
	h.Refs = map[string][]uint32{}
	for s, nums := range m.Refs {
		h.Refs[s] = nums
	}
	for i := range m.Entries {
		if o := m.Entries[i].Obj; !o.none() && h.Refs[o.Save] == nil {
			h.Refs[o.Save] = []uint32{}
		}
	}
	mw := newManifestWriter(nil, &h, len(m.Entries))
	for i := range m.Entries {
		mw.entry(&m.Entries[i])
	}
	mw.finish(m.Removed)
	return mw.e.b
}

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
	if d.bad {
		return nil, errBadManifest
	}
	if err := checkHeader(&m.header); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadManifest, err)
	}
	if !entries {
		return m, nil
	}
	paths := &pathReader{budget: 64<<20 + 64*len(d.b)}
	n := d.count(5)
	m.Entries = make([]Entry, 0, n)
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
func decodeEntry4(d *decoder, paths *pathReader, st *entryState, saves []string) Entry {
	x := Entry{Path: paths.read(d)}
	bits := d.uv()
	if bits&^bitsAll != 0 || bits&bitObj != 0 && bits&bitPacked != 0 {
		d.fail(fmt.Errorf("%s: bad flags", x.Path))
	}
	x.Kind, x.noOwner = Kind(bits&bitKind), bits&bitNoOwner != 0
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
		x.Extents = make([]Extent, 0, k)
		end := int64(0)
		for j := 0; j < k && !d.bad; j++ {
			r := Extent{Off: end + int64(d.uv()), Len: int64(d.uv())}
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
		x.Obj = objName{Save: saves[i], Num: num}
		if bits&bitPacked != 0 {
			from := int64(0)
			if st.packSave == i+1 && st.packNum == num {
				from = st.packEnd
			}
			x.Obj.Off, x.Obj.Packed = from+d.sv(), true
			st.packSave, st.packNum, st.packEnd = i+1, num, x.Obj.Off+x.stored()
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
