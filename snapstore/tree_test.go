package snapstore

import (
	"reflect"
	"testing"
	"time"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

func TestIndexRoundTripAndRejectsDamage(t *testing.T) {
	paths := []string{".", "a", "a/b", "a/b/c", "a/bc", "b"}
	ids := []tree.Ident{{Ino: 1, CTime: -5, MTime: 7, Size: 0, Mode: 0o40755}, {Ino: 2, Size: 99}, {Ino: 3, CTime: 1 << 60},
		{Ino: 1 << 63, CTime: -1 << 62, MTime: 1 << 62}, {Ino: 0, CTime: 1 << 62, MTime: -1 << 62}, {Ino: ^uint64(0), Mode: ^uint32(0)}}
	b := encodeIndexOf("20260101T000000.000001Z", "d", paths, ids)
	got, err := decodeIndex(b)
	if err != nil || got.Snapshot != "20260101T000000.000001Z" || got.DiskID != "d" || !got.Exact {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
	if ps, is, err := indexEntries(got); err != nil || !reflect.DeepEqual(ps, paths) || !reflect.DeepEqual(is, ids) {
		t.Fatalf("round trip = %v %v, %v", ps, is, err)
	}
	for _, bad := range [][]byte{nil, b[:len(b)-1], append(append([]byte{}, b...), 0), []byte("RAMBAR-INDEX-3\n"), make([]byte, len(b))} {
		if _, err := decodeIndex(bad); err == nil {
			t.Errorf("decodeIndex accepted %d damaged bytes", len(bad))
		}
	}
	for name, ps := range map[string][]string{
		"out of order": {".", "b", "a"}, "dotdot": {".", "a/.."}, "twice": {".", "a", "a"}, "slash": {".", "a/"},
	} {
		if _, err := decodeIndex(encodeIndexOf("", "d", ps, make([]tree.Ident, len(ps)))); err == nil {
			t.Errorf("%s: decodeIndex accepted %q", name, ps)
		}
	}
	// A shared prefix longer than the previous path is refused.
	w := NewIndexWriter("", "d", 2)
	w.Add(".", tree.Ident{}, "", nil)
	w.e.Uv(5)
	w.e.Str("x")
	w.e.Sv(0)
	w.e.Sv(0)
	w.e.Sv(0)
	w.e.Sv(0)
	w.e.Uv(0)
	w.e.Uv(0)
	if _, err := decodeIndex(w.Bytes()); err == nil {
		t.Error("decodeIndex accepted a prefix past the previous path")
	}
}

// encodeIndexOf is the index of paths (any order: the writer does not
// check, so tests can make damaged ones) with ids.
func encodeIndexOf(snapshot, diskID string, paths []string, ids []tree.Ident) []byte {
	w := NewIndexWriter(snapshot, diskID, len(paths))
	for i, p := range paths {
		w.Add(p, ids[i], "", nil)
	}
	return w.Bytes()
}

// indexEntries lists x's paths and identities.
func indexEntries(x *Index) ([]string, []tree.Ident, error) {
	var ps []string
	var ids []tree.Ident
	err := x.Walk(func(p []byte, id tree.Ident) bool {
		ps, ids = append(ps, string(p)), append(ids, id)
		return true
	})
	return ps, ids, err
}

func TestManifestRoundTripAndRejectsDamage(t *testing.T) {
	m := &Manifest{Header: Header{ID: "20260101T000000.000001Z", Created: time.Unix(1700000000, 5).UTC(), Files: 2, Bytes: 12,
		Refs: map[string][]uint32{"20251231T000000.000001Z": {0, 1}, "20251231T000000.000002Z": {7}}},
		Entries: []tree.Entry{
			{Path: ".", Kind: tree.KindDir, Mode: 0o755, MTime: unix.NsecToTimespec(-1)},
			{Path: "f", Kind: tree.KindFile, Mode: 0o4755, Size: 12, MTime: unix.Timespec{Nsec: 99}, Obj: tree.ObjName{Save: "20251231T000000.000001Z", Num: 1}, Xattr: map[string][]byte{"user.x": {0, 1}, "user.e": {}}},
			{Path: "h", Kind: tree.KindFile, Mode: 0o644, Size: 12, HardLink: "f", UID: 1234, GID: 5678},
			{Path: "l", Kind: tree.KindSymlink, Mode: 0o777, Link: "f"},
			{Path: "p", Kind: tree.KindFIFO, Mode: 0o600, ATime: unix.Timespec{Sec: 1, Nsec: 2}},
			{Path: "s", Kind: tree.KindFile, Mode: 0o600, Size: 1 << 30, Obj: tree.ObjName{Save: "20251231T000000.000002Z", Num: 7},
				Extents: []tree.Extent{{Off: 4096, Len: 4096}, {Off: 1<<30 - 1, Len: 1}},
				MTime:   unix.Timespec{Sec: time.Date(2400, 1, 2, 3, 4, 5, 0, time.UTC).Unix(), Nsec: 999999999}},
		}}
	b := EncodeManifest(m)
	got, err := decodeManifest(b, true)
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip:\n got %+v %v\nwant %+v", got, err, m)
	}
	if h, err := decodeManifest(b, false); err != nil || h.ID != m.ID || h.Files != 2 || len(h.Entries) != 0 {
		t.Errorf("header only: %+v %v", h, err)
	}
	for _, bad := range [][]byte{nil, b[:len(b)-1], append(append([]byte{}, b...), 1), make([]byte, len(b)), b[:30]} {
		if _, err := decodeManifest(bad, true); err == nil {
			t.Errorf("accepted %d damaged bytes", len(bad))
		}
	}
}
