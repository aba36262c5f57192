package syncrec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"rambar/snapstore"
	"rambar/tree"
)

// Side is one version of a path: its kind, permission bits and content;
// for the folder its identity when known, for the disk its object, hard
// link, size and (Meta) modification time and xattrs.
type Side struct {
	Kind  tree.Kind
	Mode  uint32
	Hash  tree.FileSum
	Ident *tree.Ident
	Obj   tree.ObjName // the store object holding the bytes
	Link  string       // the earlier path this file is a hard link to
	Size  int64
	// Meta: MTime (ns) and Xattrs are known (not in records written
	// before metadata was compared).
	Meta   bool
	MTime  int64
	Xattrs []xattrSum // sorted by name
}

// xattrSum is an extended attribute's name and a digest of its value.
type xattrSum struct {
	Name string
	Sum  uint64
}

// Path is one path of the record; a path only one side had has the
// other nil.
type Path struct {
	Path string
	F, D *Side
	// Pending: the folder did not get the disk's version at the last
	// write-back (it could not be written, or a deletion was postponed
	// because the disk was not still): D is still what the folder last
	// got, and the next write-back looks at the path again. Gone: the
	// snapshot then lacked the path (a postponed deletion).
	Pending, Gone bool
}

// SameContent: the same kind holding the same bytes (folders and FIFOs
// always match).
func (a *Side) SameContent(b *Side) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && (a.Kind == tree.KindDir || a.Kind == tree.KindFIFO || a.Hash == b.Hash)
}

// Differs: the folder's side f holds other content than the disk's side d,
// or (but for a symlink or a folder) another mode.
func (f *Side) Differs(d *Side) bool {
	return !f.SameContent(d) || f != nil && f.Kind != tree.KindSymlink && f.Kind != tree.KindDir && f.Mode != d.Mode
}

// SameDisk: the disk's side b is the one the record has (a): the same
// object, link, mode and, where both know it, metadata. A record side
// without metadata never matches one with it, so it is brought up to date.
func (a *Side) SameDisk(b *Side) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && a.Mode == b.Mode && a.Obj == b.Obj && a.Link == b.Link && a.Size == b.Size &&
		a.Meta == b.Meta && a.MTime == b.MTime && slices.Equal(a.Xattrs, b.Xattrs)
}

// MetaChanged: the disk changed the metadata the folder gets (mode,
// modification time, xattrs) of a path whose content base describes.
func MetaChanged(base, d *Side) bool {
	if base == nil || d == nil || base.Kind != d.Kind {
		return false
	}
	if base.Mode != d.Mode {
		return true
	}
	return base.Meta && d.Meta && (base.MTime != d.MTime || !slices.Equal(base.Xattrs, d.Xattrs))
}

// xattrSums digests an entry's xattrs, sorted by name.
func xattrSums(x map[string][]byte) []xattrSum {
	if len(x) == 0 {
		return nil
	}
	out := make([]xattrSum, 0, len(x))
	for _, k := range tree.SortedKeys(x) {
		out = append(out, xattrSum{Name: k, Sum: ValueSum(x[k])})
	}
	return out
}

// ValueSum is an xattr value's digest (FNV-1a, 64 bits).
func ValueSum(v []byte) uint64 {
	h := fnv.New64a()
	h.Write(v)
	return h.Sum64()
}

// DiskSide is the record's side of disk entry e, whose content is src's
// object (e itself, or a hard link's first name; nil: none).
func DiskSide(e, src *tree.Entry) *Side {
	s := &Side{Kind: e.Kind, Mode: e.Mode, Link: e.HardLink, Size: e.Size,
		Meta: true, MTime: tree.TsNano(e.MTime), Xattrs: xattrSums(e.Xattr)}
	if src != nil {
		s.Obj = src.Obj
	}
	if e.Kind == tree.KindSymlink {
		s.Hash = LinkHash(e.Link)
	}
	return s
}

// Head is the record's header: whose record it is and of which
// snapshot, whether a load finished, and its base file.
type Head struct {
	DiskID, Folder, Snapshot string
	Complete                 bool
	Base                     string // the base file's name in mirror/; "" none
}

const (
	recordDirName = "mirror"
	recordName    = "sync"
	legacyName    = "mirror-sync.json"
	legacyHead    = "mirror-sync.head"
)

// Dir is the record's folder in the store storeDir (mirror/), which
// package foldersync's lists of temporary names share.
func Dir(storeDir string) string { return filepath.Join(storeDir, recordDirName) }

// ReadHead reads the record's header only (the Keeper's Dirty asks every
// few seconds); ok is false when there is none or it is damaged.
func ReadHead(storeDir string) (Head, bool) {
	b, _, err := snapstore.ReadPrefix(filepath.Join(Dir(storeDir), recordName), snapstore.MaxFile, 64<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return readLegacyHead(storeDir)
	}
	if err != nil {
		return Head{}, false
	}
	h, _, err := decodeSyncHeader(b)
	return h, err == nil
}

// The record as it was kept before (version 1): JSON, paths as text.
type legacyRecord struct {
	Version  int    `json:"version"`
	DiskID   string `json:"disk_id"`
	Folder   string `json:"folder"`
	Snapshot string `json:"snapshot"`
	Complete bool   `json:"complete"`
	Paths    []struct {
		P string      `json:"p"`
		F *legacySide `json:"f"`
		D *legacySide `json:"d"`
	} `json:"paths"`
}

type legacySide struct {
	K tree.Kind   `json:"k"`
	M uint32      `json:"m"`
	H string      `json:"h"`
	I *tree.Ident `json:"i"`
	O string      `json:"o"`
}

func readLegacyHead(storeDir string) (Head, bool) {
	var h struct {
		DiskID   string `json:"disk_id"`
		Folder   string `json:"folder"`
		Snapshot string `json:"snapshot"`
		Complete bool   `json:"complete"`
	}
	b, err := os.ReadFile(filepath.Join(storeDir, legacyHead))
	ok := err == nil && len(b) < 64<<10 && json.Unmarshal(b, &h) == nil
	return Head{DiskID: h.DiskID, Folder: h.Folder, Snapshot: h.Snapshot, Complete: h.Complete}, ok
}

// readLegacyRecord reads a version 1 record; nil when there is none. Its
// paths are checked like any file RAMBar did not just write.
func readLegacyRecord(storeDir string) (*Record, error) {
	name := filepath.Join(storeDir, legacyName)
	b, err := snapstore.ReadBounded(name, snapstore.MaxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read mirror record: %w", err)
	}
	var r legacyRecord
	if err := json.Unmarshal(b, &r); err != nil || r.Version != 1 {
		return nil, fmt.Errorf("mirror record %s (version %d): %w: %v", name, r.Version, ErrDamaged, err)
	}
	rec := &Record{Head: Head{DiskID: r.DiskID, Folder: r.Folder, Snapshot: r.Snapshot, Complete: r.Complete}}
	for i, p := range r.Paths {
		if snapstore.CheckPath(p.P) != nil || (i > 0 && !tree.PathLess(r.Paths[i-1].P, p.P)) {
			return nil, fmt.Errorf("mirror record %s: bad path %q: %w", name, p.P, ErrDamaged)
		}
		f, ferr := p.F.side()
		d, derr := p.D.side()
		if ferr != nil || derr != nil {
			return nil, fmt.Errorf("mirror record %s at %q: %w", name, p.P, ErrDamaged)
		}
		rec.legacy = append(rec.legacy, Path{Path: p.P, F: f, D: d})
	}
	return rec, nil
}

func (l *legacySide) side() (*Side, error) {
	if l == nil {
		return nil, nil
	}
	s := &Side{Kind: l.K, Mode: l.M, Ident: l.I}
	if l.O != "" {
		o, err := snapstore.ParseObj(l.O)
		if err != nil {
			return nil, err
		}
		s.Obj = o
	}
	if l.H != "" {
		b, err := hex.DecodeString(l.H)
		if err != nil || len(b) != len(s.Hash) {
			if l.K == 0 {
				s.Hash = sha256.Sum256([]byte(l.H)) // a special file's stand-in
				return s, nil
			}
			return nil, fmt.Errorf("bad hash %q", l.H)
		}
		copy(s.Hash[:], b)
	}
	return s, nil
}

// removeLegacy removes a version 1 record once a new one is written.
func removeLegacy(storeDir string) {
	os.Remove(filepath.Join(storeDir, legacyName))
	os.Remove(filepath.Join(storeDir, legacyHead))
}

// LinkHash is a symlink's content: the hash of its target.
func LinkHash(target string) tree.FileSum { return sha256.Sum256([]byte(target)) }

// SpecialHash stands for the content of a socket or device node: never
// the disk's.
func SpecialHash(mode uint32) tree.FileSum {
	return sha256.Sum256(fmt.Appendf(nil, "special %o", mode))
}

// findPath finds path p in ps (in pathLess order): its place, and whether
// it is there.
func findPath(ps []Path, p string) (int, bool) {
	return slices.BinarySearchFunc(ps, p, func(a Path, p string) int { return tree.CmpPath(a.Path, p) })
}
