package syncrec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"

	"rambar/snapstore"
	"rambar/tree"
)

// The sync record's files (doc.go) in the store's binary codec
// (encoder, decoder): every number a varint, every string its length and
// bytes, each path as the bytes it shares with the one before and the
// rest, each part checked by a CRC-32.
//
//	sync:   magic, disk ID, folder, snapshot, complete, base file, CRC of
//	        all that; then the number of changed paths, the paths, CRC
//	base:   see base.go
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

// ErrDamaged: a Mirror disk's sync record is damaged.
var ErrDamaged = errors.New("damaged mirror record")

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

// flagIf is f where b holds, else 0.
func flagIf(b bool, f uint64) uint64 {
	if b {
		return f
	}
	return 0
}

// putSyncPath appends p.
func putSyncPath(e *snapstore.Encoder, st *recState, p *Path) {
	shared := 0
	for shared < len(p.Path) && shared < len(st.path) && p.Path[shared] == st.path[shared] {
		shared++
	}
	e.Uv(uint64(shared))
	e.Str(p.Path[shared:])
	st.path = p.Path
	fl := flagIf(p.F != nil, pathF) | flagIf(p.D != nil, pathD) | flagIf(p.Pending, pathPending) | flagIf(p.Gone, pathGone)
	e.Uv(fl)
	if p.F != nil {
		putFolderSide(e, st, p.F)
	}
	if p.D != nil {
		putDiskSide(e, st, p.D, p.F)
	}
}

func putFolderSide(e *snapstore.Encoder, st *recState, s *Side) {
	e.Uv(uint64(s.Kind))
	e.Uv(uint64(s.Mode))
	fl := flagIf(!s.Hash.None(), sideHash) | flagIf(s.Ident != nil, sideIdent)
	e.Uv(fl)
	if fl&sideHash != 0 {
		e.B = append(e.B, s.Hash[:]...)
	}
	if id := s.Ident; id != nil {
		e.Sv(int64(id.Ino - st.ino))
		e.Sv(id.CTime - st.ctime)
		e.Sv(id.MTime - st.mtime)
		e.Sv(id.Size)
		e.Uv(uint64(id.Mode))
		st.ino, st.ctime, st.mtime = id.Ino, id.CTime, id.MTime
	}
}

func putDiskSide(e *snapstore.Encoder, st *recState, s, f *Side) {
	e.Uv(uint64(s.Kind))
	e.Uv(uint64(s.Mode))
	fl := flagIf(s.Meta, diskMeta) | flagIf(s.Link != "", diskLink)
	switch {
	case s.Hash.None():
	case f != nil && f.Hash == s.Hash:
		fl |= diskSameHash
	default:
		fl |= diskHash
	}
	if !s.Obj.None() {
		fl |= diskObj | flagIf(s.Obj.Save != st.save, diskNewSave) | flagIf(s.Obj.Packed, diskPacked)
	}
	e.Uv(fl)
	if fl&diskHash != 0 {
		e.B = append(e.B, s.Hash[:]...)
	}
	if fl&diskObj != 0 {
		if fl&diskNewSave != 0 {
			e.Str(s.Obj.Save)
			st.save = s.Obj.Save
		}
		e.Uv(uint64(s.Obj.Num))
		if s.Obj.Packed {
			e.Uv(uint64(s.Obj.Off))
		}
	}
	if s.Link != "" {
		e.Str(s.Link)
	}
	e.Sv(s.Size)
	if s.Meta {
		e.Sv(s.MTime - st.mtime)
		e.Uv(uint64(len(s.Xattrs)))
		for _, x := range s.Xattrs {
			e.Str(x.Name)
			e.Uv(x.Sum)
		}
	}
}

// getSyncPath reads the next path, checking it is clean and comes after the
// one before.
func getSyncPath(d *snapstore.Decoder, st *recState) Path {
	n := d.Uv()
	if n > uint64(len(st.path)) {
		d.Fail(fmt.Errorf("path shares %d bytes with one of %d", n, len(st.path)))
		return Path{}
	}
	p := Path{Path: st.path[:n] + string(d.Raw())}
	if d.Bad || snapstore.CheckPath(p.Path) != nil || (st.path != "" && !tree.PathLess(st.path, p.Path)) {
		d.Fail(fmt.Errorf("path %q bad or out of order", p.Path))
		return Path{}
	}
	st.path = p.Path
	fl := d.Uv()
	if fl&^(pathF|pathD|pathPending|pathGone) != 0 {
		d.Fail(fmt.Errorf("%q: bad flags %d", p.Path, fl))
	}
	p.Pending, p.Gone = fl&pathPending != 0, fl&pathGone != 0
	if fl&pathF != 0 {
		p.F = getFolderSide(d, st)
	}
	if fl&pathD != 0 {
		p.D = getDiskSide(d, st, p.F)
	}
	return p
}

func getHash(d *snapstore.Decoder, h *tree.FileSum) {
	if len(d.B) < len(h) {
		d.Fail(io.ErrUnexpectedEOF)
		return
	}
	copy(h[:], d.B)
	d.B = d.B[len(h):]
}

func getFolderSide(d *snapstore.Decoder, st *recState) *Side {
	s := &Side{Kind: tree.Kind(d.Uv()), Mode: d.U32()}
	fl := d.Uv()
	if s.Kind > tree.KindFIFO || fl&^(sideHash|sideIdent) != 0 {
		d.Fail(fmt.Errorf("bad kind %d or flags %d", s.Kind, fl))
		return s
	}
	if fl&sideHash != 0 {
		getHash(d, &s.Hash)
	}
	if fl&sideIdent != 0 {
		id := &tree.Ident{Ino: st.ino + uint64(d.Sv()), CTime: st.ctime + d.Sv(), MTime: st.mtime + d.Sv(), Size: d.Sv(), Mode: d.U32()}
		st.ino, st.ctime, st.mtime = id.Ino, id.CTime, id.MTime
		s.Ident = id
	}
	return s
}

func getDiskSide(d *snapstore.Decoder, st *recState, f *Side) *Side {
	s := &Side{Kind: tree.Kind(d.Uv()), Mode: d.U32()}
	fl := d.Uv()
	if s.Kind < tree.KindFile || s.Kind > tree.KindFIFO || fl >= diskLink<<1 || (fl&diskSameHash != 0 && (f == nil || fl&diskHash != 0)) {
		d.Fail(fmt.Errorf("bad kind %d or flags %d", s.Kind, fl))
		return s
	}
	switch {
	case fl&diskHash != 0:
		getHash(d, &s.Hash)
	case fl&diskSameHash != 0:
		s.Hash = f.Hash
	}
	if fl&diskObj != 0 {
		if fl&diskNewSave != 0 {
			st.save = d.Str()
		}
		s.Obj = tree.ObjName{Save: st.save, Num: d.U32(), Packed: fl&diskPacked != 0}
		if s.Obj.Packed {
			s.Obj.Off = int64(d.Uv())
		}
		if err := snapstore.CheckObj(s.Obj); err != nil {
			d.Fail(err)
		}
	}
	if fl&diskLink != 0 {
		if s.Link = d.Str(); snapstore.CheckPath(s.Link) != nil {
			d.Fail(fmt.Errorf("bad hard link %q", s.Link))
		}
	}
	s.Size = d.Sv()
	if s.Meta = fl&diskMeta != 0; s.Meta {
		s.MTime = st.mtime + d.Sv()
		k := d.Count(2)
		for i := 0; i < k && !d.Bad; i++ {
			x := xattrSum{Name: d.Str(), Sum: d.Uv()}
			if len(x.Name) == 0 || len(x.Name) > snapstore.MaxName || (i > 0 && x.Name <= s.Xattrs[i-1].Name) {
				d.Fail(fmt.Errorf("bad xattr name %q", x.Name))
			}
			s.Xattrs = append(s.Xattrs, x)
		}
	}
	return s
}

// encodeSync is the sync file of h with the changed paths delta (sorted).
func encodeSync(h Head, delta []Path) []byte {
	e := &snapstore.Encoder{B: append(make([]byte, 0, 256+128*len(delta)), syncMagic...)}
	e.Str(h.DiskID)
	e.Str(h.Folder)
	e.Str(h.Snapshot)
	e.Uv(flagIf(h.Complete, 1))
	e.Str(h.Base)
	e.PutCRC(0)
	start := len(e.B)
	e.Uv(uint64(len(delta)))
	var st recState
	for i := range delta {
		putSyncPath(e, &st, &delta[i])
	}
	e.PutCRC(start)
	return e.B
}

// decodeSyncHeader reads a sync file's header and returns it with the
// bytes that follow it.
func decodeSyncHeader(b []byte) (Head, []byte, error) {
	d := &snapstore.Decoder{B: b}
	d.Magic(syncMagic)
	h := Head{DiskID: d.Str(), Folder: d.Str(), Snapshot: d.Str()}
	c := d.Uv()
	h.Complete = c == 1
	h.Base = d.Str()
	n := len(b) - len(d.B)
	if d.Bad || c > 1 || len(d.B) < 4 || crc32.ChecksumIEEE(b[:n]) != binary.LittleEndian.Uint32(d.B) ||
		(h.Snapshot != "" && !snapstore.ValidID(h.Snapshot)) || (h.Base != "" && !validBaseName(h.Base)) {
		return Head{}, nil, ErrDamaged
	}
	return h, d.B[4:], nil
}

// decodeSync reads a whole sync file.
func decodeSync(b []byte) (Head, []Path, error) {
	h, rest, err := decodeSyncHeader(b)
	if err != nil {
		return h, nil, err
	}
	if !snapstore.CRCOK(rest) {
		return h, nil, ErrDamaged
	}
	d := &snapstore.Decoder{B: rest[:len(rest)-4]}
	n := d.Count(3)
	out := make([]Path, 0, n)
	var st recState
	for i := 0; i < n && !d.Bad; i++ {
		out = append(out, getSyncPath(d, &st))
	}
	if !d.End() {
		return h, nil, fmt.Errorf("%w: %v", ErrDamaged, d.Why)
	}
	return h, out, nil
}

// validBaseName: "base-" and 16 hex digits.
func validBaseName(s string) bool {
	hex, ok := strings.CutPrefix(s, "base-")
	return ok && len(hex) == 16 && strings.Trim(hex, "0123456789abcdef") == ""
}
