package snapstore

import (
	"fmt"
	"io"
	"slices"

	"rambar/tree"

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
	e     Encoder
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
func newManifestWriter(w io.Writer, h *Header, n int) *manifestWriter {
	mw := &manifestWriter{e: Encoder{w: w, B: make([]byte, 0, flushAt+4096)}, saves: map[string]uint64{}, left: n}
	e := &mw.e
	e.B = append(e.B, manifestMagic...)
	e.Str(h.ID)
	e.Sv(h.Created.UnixNano())
	e.Uv(uint64(h.Files))
	e.Sv(h.Bytes)
	e.Str(h.Base)
	saves := tree.SortedKeys(h.Refs)
	e.Uv(uint64(len(saves)))
	for i, s := range saves {
		mw.saves[s] = uint64(i)
		nums := slices.Clone(h.Refs[s])
		slices.Sort(nums)
		nums = slices.Compact(nums)
		e.Str(s)
		e.Uv(uint64(len(nums)))
		for j, n := range nums {
			if j == 0 {
				e.Uv(uint64(n))
			} else {
				e.Uv(uint64(n - nums[j-1] - 1))
			}
		}
	}
	e.Uv(uint64(n))
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

func (e *Encoder) time(t unix.Timespec) { e.Sv(int64(t.Sec)); e.Uv(uint64(t.Nsec)) }

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
func (mw *manifestWriter) entry(x *tree.Entry) error {
	if mw.left--; mw.left < 0 {
		return fmt.Errorf("encode manifest: more entries than announced")
	}
	save, known := mw.saves[x.Obj.Save]
	if !x.Obj.None() && !known {
		return fmt.Errorf("encode manifest: object %s of a save not in the header", x.Obj)
	}
	e, p := &mw.e, &mw.prev
	bits := p.bits(x)
	k := sharedPrefix(p.path, x.Path)
	e.Uv(uint64(k))
	e.Str(x.Path[k:])
	e.Uv(bits)
	if bits&bitSameMode == 0 {
		e.Uv(uint64(x.Mode))
	}
	e.Sv(x.Size)
	if d, near := step(x.MTime, p.mtime); near {
		e.Sv(d)
	} else {
		e.time(x.MTime)
	}
	if d, near := step(x.ATime, x.MTime); bits&bitATimeIsM == 0 && near {
		e.Sv(d)
	} else if bits&bitATimeIsM == 0 {
		e.time(x.ATime)
	}
	if bits&bitSameOwner == 0 {
		e.Uv(uint64(x.UID))
		e.Uv(uint64(x.GID))
	}
	if bits&bitLink != 0 {
		e.Str(x.Link)
	}
	if bits&bitHardLink != 0 {
		e.Str(x.HardLink)
	}
	mw.data(x, bits, save)
	p.path, p.mode, p.uid, p.gid, p.mtime = x.Path, x.Mode, x.UID, x.GID, x.MTime
	if len(e.B) >= flushAt {
		e.flush()
	}
	return e.err
}

// bits are x's kind and flags, against p (the entry before's).
func (p *entryState) bits(x *tree.Entry) uint64 {
	bits := uint64(x.Kind) & bitKind
	flag := func(on bool, b uint64) {
		if on {
			bits |= b
		}
	}
	_, mnear := step(x.MTime, p.mtime)
	_, anear := step(x.ATime, x.MTime)
	flag(x.Mode == p.mode, bitSameMode)
	flag(x.UID == p.uid && x.GID == p.gid, bitSameOwner)
	flag(x.ATime == x.MTime, bitATimeIsM)
	flag(!x.Obj.None() && x.Obj.Packed, bitPacked)
	flag(!x.Obj.None() && !x.Obj.Packed, bitObj)
	flag(x.NoOwner, bitNoOwner)
	flag(x.Extents != nil, bitSparse)
	flag(!mnear, bitFarMTime)
	flag(x.ATime != x.MTime && !anear, bitFarATime)
	flag(len(x.Xattr) > 0, bitXattr)
	flag(x.Link != "", bitLink)
	flag(x.HardLink != "", bitHardLink)
	return bits
}

// data writes x's extents, object (save: its place in the table) and
// xattrs.
func (mw *manifestWriter) data(x *tree.Entry, bits, save uint64) {
	e, p := &mw.e, &mw.prev
	if bits&bitSparse != 0 {
		e.Uv(uint64(len(x.Extents)))
		end := int64(0)
		for _, r := range x.Extents {
			e.Uv(uint64(r.Off - end))
			e.Uv(uint64(r.Len))
			end = r.Off + r.Len
		}
	}
	if !x.Obj.None() {
		e.Uv(save)
		e.Uv(uint64(x.Obj.Num))
		if x.Obj.Packed {
			from := int64(0)
			if p.packSave == save+1 && p.packNum == x.Obj.Num {
				from = p.packEnd
			}
			e.Sv(x.Obj.Off - from)
			p.packSave, p.packNum, p.packEnd = save+1, x.Obj.Num, x.Obj.Off+x.Stored()
		}
	}
	if bits&bitXattr != 0 {
		keys := tree.SortedKeys(x.Xattr)
		e.Uv(uint64(len(keys)))
		for _, k := range keys {
			e.Str(k)
			e.bytes(x.Xattr[k])
		}
	}
}

// finish writes the removed paths (pathLess order) and the rest of the
// buffer.
func (mw *manifestWriter) finish(removed []string) error {
	if mw.left != 0 {
		return fmt.Errorf("encode manifest: %d entries missing", mw.left)
	}
	e := &mw.e
	e.Uv(uint64(len(removed)))
	prev := ""
	for _, r := range removed {
		k := sharedPrefix(prev, r)
		e.Uv(uint64(k))
		e.Str(r[k:])
		prev = r
		if len(e.B) >= flushAt {
			e.flush()
		}
	}
	e.flush()
	return e.err
}

// EncodeManifest is m in the current format. Saves its entries use that
// m.Refs lacks are added to the table.
func EncodeManifest(m *Manifest) []byte {
	h := m.Header
	h.Refs = map[string][]uint32{}
	for s, nums := range m.Refs {
		h.Refs[s] = nums
	}
	for i := range m.Entries {
		if o := m.Entries[i].Obj; !o.None() && h.Refs[o.Save] == nil {
			h.Refs[o.Save] = []uint32{}
		}
	}
	mw := newManifestWriter(nil, &h, len(m.Entries))
	for i := range m.Entries {
		mw.entry(&m.Entries[i])
	}
	mw.finish(m.Removed)
	return mw.e.B
}
