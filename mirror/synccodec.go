package mirror

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"rambar/tree"
)

// The sync record's files (syncrec.go) in the store's binary codec
// (encoder, decoder): every number a varint, every string its length and
// bytes, each path as the bytes it shares with the one before and the
// rest, each part checked by a CRC-32.
//
//	sync:   magic, disk ID, folder, snapshot, complete, base file, CRC of
//	        all that; then the number of changed paths, the paths, CRC
//	base:   see syncbase.go
//
// A path: shared bytes, the rest, flags (folder side, disk side,
// pending, gone), then the folder's side: kind, mode, flags, hash, the
// identity (inode, ctime and mtime as steps from the path before), and
// the disk's: kind, mode, flags, hash (unless the folder's), object (its
// save only when it is not the one before), hard link, size, modification
// time (a step from the folder's) and xattrs (name and value digest).
const (
	syncMagic  = "RAMBAR-MIRROR-SYNC-1\n"
	baseMagic  = "RAMBAR-MIRROR-BASE-1\n"
	blockPaths = 128
	trailerLen = 12 // a base's index offset (8 bytes) and the index's CRC (4)
)

const (
	pathF = 1 << iota
	pathD
	pathPending
	pathGone
)

// Folder side flags.
const (
	sideHash = 1 << iota
	sideIdent
)

var errBadRecord = errors.New("damaged mirror record")

// fixed32 appends v in four bytes (a CRC).
func (e *encoder) fixed32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }

// recState is what a path's fields are written against: the path, the
// folder identity and the object's save before it (each block and each
// sync file starts afresh).
type recState struct {
	path         string
	ino          uint64
	ctime, mtime int64
	save         string
}

// Disk side flags.
const (
	diskHash     = 1 << iota // its own hash follows
	diskSameHash             // the folder side's hash
	diskMeta                 // time and xattrs follow
	diskObj                  // an object follows
	diskNewSave              // the object's save differs from the one before
	diskPacked               // the object is a range of a pack
	diskLink                 // a hard link's first name follows
)

// syncPath appends p.
func (e *encoder) syncPath(st *recState, p *syncPath) {
	shared := 0
	for shared < len(p.Path) && shared < len(st.path) && p.Path[shared] == st.path[shared] {
		shared++
	}
	e.uv(uint64(shared))
	e.str(p.Path[shared:])
	st.path = p.Path
	fl := 0
	if p.F != nil {
		fl |= pathF
	}
	if p.D != nil {
		fl |= pathD
	}
	if p.Pending {
		fl |= pathPending
	}
	if p.Gone {
		fl |= pathGone
	}
	e.uv(uint64(fl))
	if p.F != nil {
		e.folderSide(st, p.F)
	}
	if p.D != nil {
		e.diskSide(st, p.D, p.F)
	}
}

func (e *encoder) folderSide(st *recState, s *side) {
	e.uv(uint64(s.Kind))
	e.uv(uint64(s.Mode))
	fl := 0
	if !s.Hash.none() {
		fl |= sideHash
	}
	if s.Ident != nil {
		fl |= sideIdent
	}
	e.uv(uint64(fl))
	if fl&sideHash != 0 {
		e.b = append(e.b, s.Hash[:]...)
	}
	if id := s.Ident; id != nil {
		e.sv(int64(id.Ino - st.ino))
		e.sv(id.CTime - st.ctime)
		e.sv(id.MTime - st.mtime)
		e.sv(id.Size)
		e.uv(uint64(id.Mode))
		st.ino, st.ctime, st.mtime = id.Ino, id.CTime, id.MTime
	}
}

func (e *encoder) diskSide(st *recState, s, f *side) {
	e.uv(uint64(s.Kind))
	e.uv(uint64(s.Mode))
	fl := 0
	switch {
	case s.Hash.none():
	case f != nil && f.Hash == s.Hash:
		fl |= diskSameHash
	default:
		fl |= diskHash
	}
	if s.Meta {
		fl |= diskMeta
	}
	if !s.Obj.None() {
		fl |= diskObj
		if s.Obj.Save != st.save {
			fl |= diskNewSave
		}
		if s.Obj.Packed {
			fl |= diskPacked
		}
	}
	if s.Link != "" {
		fl |= diskLink
	}
	e.uv(uint64(fl))
	if fl&diskHash != 0 {
		e.b = append(e.b, s.Hash[:]...)
	}
	if fl&diskObj != 0 {
		if fl&diskNewSave != 0 {
			e.str(s.Obj.Save)
			st.save = s.Obj.Save
		}
		e.uv(uint64(s.Obj.Num))
		if s.Obj.Packed {
			e.uv(uint64(s.Obj.Off))
		}
	}
	if s.Link != "" {
		e.str(s.Link)
	}
	e.sv(s.Size)
	if s.Meta {
		e.sv(s.MTime - st.mtime)
		e.uv(uint64(len(s.Xattrs)))
		for _, x := range s.Xattrs {
			e.str(x.Name)
			e.uv(x.Sum)
		}
	}
}

// syncPath reads the next path, checking it is clean and comes after the
// one before.
func (d *decoder) syncPath(st *recState) syncPath {
	n := d.uv()
	if n > uint64(len(st.path)) {
		d.fail(fmt.Errorf("path shares %d bytes with one of %d", n, len(st.path)))
		return syncPath{}
	}
	p := syncPath{Path: st.path[:n] + string(d.raw())}
	if d.bad || checkPath(p.Path) != nil || (st.path != "" && !tree.PathLess(st.path, p.Path)) {
		d.fail(fmt.Errorf("path %q bad or out of order", p.Path))
		return syncPath{}
	}
	st.path = p.Path
	fl := d.uv()
	if fl&^(pathF|pathD|pathPending|pathGone) != 0 {
		d.fail(fmt.Errorf("%q: bad flags %d", p.Path, fl))
	}
	p.Pending, p.Gone = fl&pathPending != 0, fl&pathGone != 0
	if fl&pathF != 0 {
		p.F = d.folderSide(st)
	}
	if fl&pathD != 0 {
		p.D = d.diskSide(st, p.F)
	}
	return p
}

func (d *decoder) hash(h *sum) {
	if len(d.b) < len(h) {
		d.fail(io.ErrUnexpectedEOF)
		return
	}
	copy(h[:], d.b)
	d.b = d.b[len(h):]
}

func (d *decoder) folderSide(st *recState) *side {
	s := &side{Kind: tree.Kind(d.uv()), Mode: d.u32()}
	fl := d.uv()
	if s.Kind > tree.KindFIFO || fl&^(sideHash|sideIdent) != 0 {
		d.fail(fmt.Errorf("bad kind %d or flags %d", s.Kind, fl))
		return s
	}
	if fl&sideHash != 0 {
		d.hash(&s.Hash)
	}
	if fl&sideIdent != 0 {
		id := &tree.Ident{Ino: st.ino + uint64(d.sv()), CTime: st.ctime + d.sv(), MTime: st.mtime + d.sv(), Size: d.sv(), Mode: d.u32()}
		st.ino, st.ctime, st.mtime = id.Ino, id.CTime, id.MTime
		s.Ident = id
	}
	return s
}

func (d *decoder) diskSide(st *recState, f *side) *side {
	s := &side{Kind: tree.Kind(d.uv()), Mode: d.u32()}
	fl := d.uv()
	if s.Kind < tree.KindFile || s.Kind > tree.KindFIFO || fl >= diskLink<<1 || (fl&diskSameHash != 0 && (f == nil || fl&diskHash != 0)) {
		d.fail(fmt.Errorf("bad kind %d or flags %d", s.Kind, fl))
		return s
	}
	switch {
	case fl&diskHash != 0:
		d.hash(&s.Hash)
	case fl&diskSameHash != 0:
		s.Hash = f.Hash
	}
	if fl&diskObj != 0 {
		if fl&diskNewSave != 0 {
			st.save = d.str()
		}
		s.Obj = tree.ObjName{Save: st.save, Num: d.u32(), Packed: fl&diskPacked != 0}
		if s.Obj.Packed {
			s.Obj.Off = int64(d.uv())
		}
		if err := checkObj(s.Obj); err != nil {
			d.fail(err)
		}
	}
	if fl&diskLink != 0 {
		if s.Link = d.str(); checkPath(s.Link) != nil {
			d.fail(fmt.Errorf("bad hard link %q", s.Link))
		}
	}
	s.Size = d.sv()
	if s.Meta = fl&diskMeta != 0; s.Meta {
		s.MTime = st.mtime + d.sv()
		k := d.count(2)
		for i := 0; i < k && !d.bad; i++ {
			x := xattrSum{Name: d.str(), Sum: d.uv()}
			if len(x.Name) == 0 || len(x.Name) > maxName || (i > 0 && x.Name <= s.Xattrs[i-1].Name) {
				d.fail(fmt.Errorf("bad xattr name %q", x.Name))
			}
			s.Xattrs = append(s.Xattrs, x)
		}
	}
	return s
}

// crcOK checks that b ends with the CRC-32 of what comes before.
func crcOK(b []byte) bool {
	return len(b) >= 4 && crc32.ChecksumIEEE(b[:len(b)-4]) == binary.LittleEndian.Uint32(b[len(b)-4:])
}

// encodeSync is the sync file of h with the changed paths delta (sorted).
func encodeSync(h syncHead, delta []syncPath) []byte {
	e := &encoder{b: append(make([]byte, 0, 256+128*len(delta)), syncMagic...)}
	e.str(h.DiskID)
	e.str(h.Folder)
	e.str(h.Snapshot)
	complete := uint64(0)
	if h.Complete {
		complete = 1
	}
	e.uv(complete)
	e.str(h.Base)
	e.fixed32(crc32.ChecksumIEEE(e.b))
	start := len(e.b)
	e.uv(uint64(len(delta)))
	var st recState
	for i := range delta {
		e.syncPath(&st, &delta[i])
	}
	e.fixed32(crc32.ChecksumIEEE(e.b[start:]))
	return e.b
}

// decodeSyncHeader reads a sync file's header and returns it with the
// bytes that follow it.
func decodeSyncHeader(b []byte) (syncHead, []byte, error) {
	d := &decoder{b: b}
	d.magic(syncMagic)
	h := syncHead{DiskID: d.str(), Folder: d.str(), Snapshot: d.str()}
	c := d.uv()
	h.Complete = c == 1
	h.Base = d.str()
	n := len(b) - len(d.b)
	if d.bad || c > 1 || len(d.b) < 4 || crc32.ChecksumIEEE(b[:n]) != binary.LittleEndian.Uint32(d.b) ||
		(h.Snapshot != "" && !validID(h.Snapshot)) || (h.Base != "" && !validBaseName(h.Base)) {
		return syncHead{}, nil, errBadRecord
	}
	return h, d.b[4:], nil
}

// decodeSync reads a whole sync file.
func decodeSync(b []byte) (syncHead, []syncPath, error) {
	h, rest, err := decodeSyncHeader(b)
	if err != nil {
		return h, nil, err
	}
	if !crcOK(rest) {
		return h, nil, errBadRecord
	}
	d := &decoder{b: rest[:len(rest)-4]}
	n := d.count(3)
	out := make([]syncPath, 0, n)
	var st recState
	for i := 0; i < n && !d.bad; i++ {
		out = append(out, d.syncPath(&st))
	}
	if !d.end() {
		return h, nil, fmt.Errorf("%w: %v", errBadRecord, d.why)
	}
	return h, out, nil
}

// validBaseName: "base-" and 16 hex digits.
func validBaseName(s string) bool {
	if len(s) != 21 || s[:5] != "base-" {
		return false
	}
	for _, c := range []byte(s[5:]) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
