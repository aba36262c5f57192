package mirror

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"rambar/internal/atomicfile"
)

// syncRecord is what a Mirror disk and its folder held the last time they
// were brought together (the load, then each write-back): per path the
// folder's version (its identity, so an unchanged file is known without
// reading it, and its content hash) and the disk's (its store object and
// content hash). A write-back compares the folder and the disk with it to
// tell who changed what (see plan). It lives in the disk's store folder,
// written durably; Complete is set only when the load finished, so a disk
// whose load was cut short is never written back.
type syncRecord struct {
	Version  int    `json:"version"`
	DiskID   string `json:"disk_id"`
	Folder   string `json:"folder"`
	Snapshot string `json:"snapshot"` // the store snapshot the disk sides describe
	Complete bool   `json:"complete"`
	// Paths in pathLess order; a path only one side had has the other nil.
	Paths []syncPath `json:"paths"`
}

const (
	syncRecordName    = "mirror-sync.json"
	syncRecordVersion = 1
)

// syncPath is one path of a syncRecord.
type syncPath struct {
	Path string `json:"p"`
	F    *side  `json:"f,omitempty"` // the folder's version
	D    *side  `json:"d,omitempty"` // the disk's version
}

// side is one version of a path: its kind, permission bits and content
// (the SHA-256 of a file's bytes or of a symlink's target; "" for a
// folder), plus for the folder its identity and for the disk its object.
type side struct {
	Kind  Kind   `json:"k"`
	Mode  uint32 `json:"m"`
	Hash  string `json:"h,omitempty"`
	Ident *ident `json:"i,omitempty"`
	Obj   string `json:"o,omitempty"`
}

// sameContent: the same kind holding the same bytes (folders always match).
func (a *side) sameContent(b *side) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && (a.Kind == KindDir || a.Hash == b.Hash)
}

func syncRecordPath(storeDir string) string { return filepath.Join(storeDir, syncRecordName) }

// readSyncRecord reads the record of the store in dir; nil when there is
// none. It is checked like any file RAMBar did not just write: paths must
// be clean, relative and in order.
func readSyncRecord(dir string) (*syncRecord, error) {
	b, err := os.ReadFile(syncRecordPath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read mirror record: %w", err)
	}
	var r syncRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("mirror record %s is corrupt: %w", syncRecordPath(dir), err)
	}
	if r.Version != syncRecordVersion {
		return nil, fmt.Errorf("mirror record %s has version %d, this RAMBar reads %d", syncRecordPath(dir), r.Version, syncRecordVersion)
	}
	for i, p := range r.Paths {
		if !cleanRel(p.Path) || (i > 0 && !pathLess(r.Paths[i-1].Path, p.Path)) {
			return nil, fmt.Errorf("mirror record %s is corrupt: bad path %q", syncRecordPath(dir), p.Path)
		}
	}
	return &r, nil
}

// writeSyncRecord replaces the record durably, then its head: the few
// fields Dirty reads every few seconds without parsing every path.
func writeSyncRecord(dir string, r *syncRecord) error {
	r.Version = syncRecordVersion
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := noSpace(atomicfile.WriteFile(syncRecordPath(dir), b, 0o600)); err != nil {
		return err
	}
	h, _ := json.Marshal(syncHead{DiskID: r.DiskID, Folder: r.Folder, Snapshot: r.Snapshot, Complete: r.Complete})
	return noSpace(atomicfile.WriteFile(filepath.Join(dir, syncHeadName), h, 0o600))
}

// syncHead is a record's header, kept beside it. A crash between the two
// writes leaves an older head: at worst one write-back more.
type syncHead struct {
	DiskID   string `json:"disk_id"`
	Folder   string `json:"folder"`
	Snapshot string `json:"snapshot"`
	Complete bool   `json:"complete"`
}

const syncHeadName = "mirror-sync.head"

// readSyncHead reads the head; ok is false when there is none or it is damaged.
func readSyncHead(dir string) (syncHead, bool) {
	var h syncHead
	b, err := os.ReadFile(filepath.Join(dir, syncHeadName))
	return h, err == nil && len(b) < 64<<10 && json.Unmarshal(b, &h) == nil
}

// cleanRel: "." or a slash-separated relative path without empty, "." or
// ".." components or NULs.
func cleanRel(p string) bool {
	if p == "." {
		return true
	}
	if p == "" || strings.ContainsRune(p, 0) || strings.HasPrefix(p, "/") {
		return false
	}
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." {
			return false
		}
	}
	return true
}

// byPath indexes a record's paths.
func (r *syncRecord) byPath() map[string]*syncPath {
	out := make(map[string]*syncPath, len(r.Paths))
	for i := range r.Paths {
		out[r.Paths[i].Path] = &r.Paths[i]
	}
	return out
}

// record reads the new tree once more (after the swap and the sweep) and
// makes the next record: each path's identity now, with the content the
// write-back put there, and the disk's side. A path whose inode is not the
// one the write-back made gets no identity, so the next write-back reads it.
func (w *folderWrite) record(items []*planItem, dsides map[string]*side) (*syncRecord, error) {
	want := make(map[string]*planItem, len(items))
	for _, it := range items {
		want[it.Path] = it
	}
	out := map[string]*syncPath{}
	err := walkFolder(w.newfd, func(_ int, _ string, e *fsEntry) error {
		f := &fstate{e: e}
		s := f.side()
		s.Hash = ""
		if it := want[e.rel]; it != nil && w.b.inos[e.rel] == uint64(e.st.Ino) || e.rel == "." {
			if it != nil {
				s.Hash = it.Hash
			}
			if e.isReg() && s.Hash != "" && (it == nil || asBuilt(it, &e.st)) {
				id := identOf(&e.st)
				s.Ident = &id
			}
		}
		if e.isLink() {
			s.Hash = linkHash(e.link)
		}
		out[e.rel] = &syncPath{Path: e.rel, F: s}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read back %s: %w", w.folder, err)
	}
	for p, d := range dsides {
		if out[p] == nil {
			out[p] = &syncPath{Path: p}
		}
		out[p].D = d
	}
	return sortedRecord(out), nil
}

// asBuilt: a file still has the size and time the write-back gave it (or
// found it with); one written to meanwhile gets no identity, so the next
// write-back reads it again rather than trust a hash of older bytes.
func asBuilt(it *planItem, st *unix.Stat_t) bool {
	switch {
	case it.From == fromDisk:
		return st.Size == it.D.Size && tsNano(statMtime(st)) == tsNano(it.D.MTime)
	case it.F != nil:
		return st.Size == it.F.e.st.Size && tsNano(statMtime(st)) == tsNano(statMtime(&it.F.e.st))
	}
	return false
}

func sortedRecord(m map[string]*syncPath) *syncRecord {
	r := &syncRecord{Version: syncRecordVersion, Complete: true, Paths: make([]syncPath, 0, len(m))}
	for _, p := range m {
		r.Paths = append(r.Paths, *p)
	}
	sort.Slice(r.Paths, func(i, j int) bool { return pathLess(r.Paths[i].Path, r.Paths[j].Path) })
	return r
}

func newHash() hash.Hash           { return sha256.New() }
func hexSum(h hash.Hash) string    { return hex.EncodeToString(h.Sum(nil)) }
func splitAll(rel string) []string { return strings.Split(rel, "/") }
