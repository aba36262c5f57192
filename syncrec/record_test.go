package syncrec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"rambar/internal/testproc"
	"rambar/snapstore"
	"rambar/tree"
)

// recordPaths makes n record paths, some of them not UTF-8.
func recordPaths(n int) []Path {
	saves := []string{"20261201T101500.123456Z", "20261202T101500.123456Z"}
	var out []Path
	out = append(out, Path{Path: ".", F: &Side{Kind: tree.KindDir, Mode: 0o755}, D: &Side{Kind: tree.KindDir, Mode: 0o755, Meta: true}})
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("d%d/caf\xe9-%d", i%7, i)
		if i%3 == 0 {
			p = fmt.Sprintf("d%d/caf\xe8-%d", i%7, i)
		}
		id := tree.Ident{Ino: uint64(i + 10), CTime: int64(i) * 7, MTime: int64(i) * 5, Size: int64(i), Mode: 0o100644}
		h := LinkHash(p)
		out = append(out, Path{Path: p,
			F: &Side{Kind: tree.KindFile, Mode: 0o644, Hash: h, Ident: &id},
			D: &Side{Kind: tree.KindFile, Mode: 0o644, Hash: h, Obj: tree.ObjName{Save: saves[i%2], Num: 3, Off: int64(i % 5 * i), Packed: i%5 != 0}, Size: int64(i), Meta: true,
				MTime: int64(i), Xattrs: []xattrSum{{"user.a", 1}, {"user.b", uint64(i)}}}})
	}
	for i := 0; i < 7; i++ {
		out = append(out, Path{Path: fmt.Sprintf("d%d", i), F: &Side{Kind: tree.KindDir, Mode: 0o755}})
	}
	sort.Slice(out, func(i, j int) bool { return tree.PathLess(out[i].Path, out[j].Path) })
	return out
}

func fillWith(ps []Path) func(add func(*Path) error) error {
	return func(add func(*Path) error) error {
		for i := range ps {
			if err := add(&ps[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

func recordEqual(t *testing.T, r *Record, want []Path) {
	t.Helper()
	var got []Path
	if err := r.Each(func(p *Path) error { got = append(got, *p); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d paths, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Path != want[i].Path || !sameSides(got[i].F, want[i].F) || !sameSides(got[i].D, want[i].D) ||
			got[i].Pending != want[i].Pending || got[i].Gone != want[i].Gone {
			t.Fatalf("path %d: %+v, want %+v", i, got[i], want[i])
		}
		sp, err := r.Get(want[i].Path)
		if err != nil || sp == nil || sp.Path != want[i].Path {
			t.Fatalf("get %q: %+v %v", want[i].Path, sp, err)
		}
	}
}

func sameSides(a, b *Side) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.SameDisk(b) && a.Hash == b.Hash && (a.Ident == nil) == (b.Ident == nil) && (a.Ident == nil || *a.Ident == *b.Ident)
}

// The record keeps paths as bytes (two Latin-1 names that read the same
// once their bad bytes are replaced stay two), in blocks: every path
// reads back from the base, and a few changes rewrite only the sync file
// until the delta passes its limit, then a new base.
func TestSyncRecordRoundTripAndDelta(t *testing.T) {
	dir := t.TempDir()
	want := recordPaths(1000)
	h := Head{DiskID: "disk", Folder: "/f\xfcr", Snapshot: "20261201T101500.123456Z", Complete: true}
	if err := Write(dir, h, nil, fillWith(want)); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Head.Folder != h.Folder || !r.Complete || r.base == nil || r.base.n != len(want) || len(r.base.blocks) < 8 {
		t.Fatalf("head %+v, base %+v", r.Head, r.base)
	}
	recordEqual(t, r, want)
	if sp, _ := r.Get("d0/caf\xe9-7"); sp == nil {
		t.Fatal("a Latin-1 name is lost")
	}
	// A few changes: a path changed, one removed, one added, one pending.
	base := r.Base
	changes := []Path{
		{Path: want[5].Path, F: &Side{Kind: tree.KindFile, Mode: 0o600, Hash: LinkHash("x")}, D: want[5].D},
		{Path: want[9].Path},
		{Path: "zz-new", F: &Side{Kind: tree.KindSymlink, Hash: LinkHash("t")}, D: &Side{Kind: tree.KindSymlink, Hash: LinkHash("t"), Meta: true}},
		{Path: want[11].Path, F: want[11].F, D: want[11].D, Pending: true, Gone: true},
	}
	sort.Slice(changes, func(i, j int) bool { return tree.PathLess(changes[i].Path, changes[j].Path) })
	if err := Update(dir, r, h, changes); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pending []string
	for _, p := range r.Delta {
		if p.Pending {
			pending = append(pending, p.Path)
		}
	}
	if r.Base != base || len(r.Delta) != 4 || !slices.Equal(pending, []string{want[11].Path}) {
		t.Fatalf("a small change rewrote the base or lost the delta: base %s (was %s), delta %d, pending %v", r.Base, base, len(r.Delta), pending)
	}
	exp := mergePaths(want, changes)
	exp = slices.DeleteFunc(exp, func(p Path) bool { return p.F == nil && p.D == nil && !p.Pending })
	recordEqual(t, r, exp)
	// Past the limit: a new base, the pending path kept in the delta.
	many := make([]Path, 0, deltaLimit(len(want))+1)
	for i := 0; i <= deltaLimit(len(want)); i++ {
		many = append(many, Path{Path: fmt.Sprintf("zz/%06d", i), F: &Side{Kind: tree.KindDir}})
	}
	if err := Update(dir, r, h, many); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Base == base || len(r.Delta) != 1 || !r.Delta[0].Pending {
		t.Fatalf("no compaction: base %s, delta %d", r.Base, len(r.Delta))
	}
	exp = mergePaths(exp, many)
	recordEqual(t, r, exp)
	if ents, _ := os.ReadDir(Dir(dir)); len(ents) != 2 {
		t.Errorf("the old base is left: %v", ents)
	}
}

// A damaged record is refused (a clear error), never half read.
func TestSyncRecordDamageIsRefused(t *testing.T) {
	dir := t.TempDir()
	h := Head{DiskID: "disk", Folder: "/f", Snapshot: "20261201T101500.123456Z", Complete: true}
	if err := Write(dir, h, nil, fillWith(recordPaths(300))); err != nil {
		t.Fatal(err)
	}
	r, _ := Open(dir)
	basePath := filepath.Join(Dir(dir), r.Base)
	r.Close()
	b, _ := os.ReadFile(basePath)
	for _, at := range []int{len(baseMagic) + 3, len(b) / 2, len(b) - 20, len(b) - 2} {
		bad := slices.Clone(b)
		bad[at] ^= 0x55
		os.WriteFile(basePath, bad, 0o600)
		r, err := Open(dir)
		if err == nil {
			err = r.Each(func(*Path) error { return nil })
			r.Close()
		}
		if err == nil {
			t.Errorf("a base damaged at byte %d of %d was read", at, len(b))
		}
	}
	os.WriteFile(basePath, b, 0o600)
	s, _ := os.ReadFile(filepath.Join(Dir(dir), recordName))
	s[len(s)-1] ^= 1
	os.WriteFile(filepath.Join(Dir(dir), recordName), s, 0o600)
	if _, err := Open(dir); err == nil {
		t.Error("a damaged sync file was read")
	}
}

// A record written before this format (JSON, mirror-sync.json) loads, and
// is replaced by the next write.
func TestSyncRecordOfVersion1Loads(t *testing.T) {
	dir := t.TempDir()
	legacy := map[string]any{"version": 1, "disk_id": "disk", "folder": "/f", "snapshot": "20261201T101500.123456Z", "complete": true,
		"paths": []map[string]any{
			{"p": ".", "f": map[string]any{"k": 2, "m": 493}, "d": map[string]any{"k": 2, "m": 493}},
			{"p": "a.txt", "f": map[string]any{"k": 1, "m": 420, "h": fmt.Sprintf("%x", LinkHash("a")),
				"i": map[string]any{"Ino": 5, "CTime": 1, "MTime": 2, "Size": 3, "Mode": 33188}},
				"d": map[string]any{"k": 1, "m": 420, "h": fmt.Sprintf("%x", LinkHash("a")), "o": "20261201T101500.123456Z/0@0"}},
			{"p": "sock", "f": map[string]any{"k": 0, "m": 493, "h": "special 140755"}},
		}}
	b, _ := json.Marshal(legacy)
	os.WriteFile(filepath.Join(dir, legacyName), b, 0o600)
	os.WriteFile(filepath.Join(dir, legacyHead), []byte(`{"disk_id":"disk","folder":"/f","snapshot":"20261201T101500.123456Z","complete":true}`), 0o600)
	if h, ok := ReadHead(dir); !ok || h.Snapshot != "20261201T101500.123456Z" || !h.Complete {
		t.Fatalf("head %+v %v", h, ok)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := r.Get("a.txt")
	if a == nil || a.F.Hash != LinkHash("a") || a.F.Ident.Ino != 5 || a.D.Obj != (tree.ObjName{Save: "20261201T101500.123456Z", Packed: true}) || a.D.Meta {
		t.Fatalf("a.txt: %+v", a)
	}
	if s, _ := r.Get("sock"); s == nil || s.F.Hash != SpecialHash(0o140755) {
		t.Fatalf("sock: %+v", s)
	}
	if err := Update(dir, r, r.Head, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, legacyName)); err == nil {
		t.Error("the version 1 record is left")
	}
	r, err = Open(dir)
	if err != nil || r.legacy != nil || r.base == nil || r.base.n != 3 {
		t.Fatalf("rewritten: %+v %v", r, err)
	}
	r.Close()
}

// FuzzDecodeSync feeds the sync file's decoder arbitrary bytes: it must
// never panic, and what it accepts is clean and in order.
func FuzzDecodeSync(f *testing.F) {
	ps := recordPaths(20)
	f.Add(encodeSync(Head{DiskID: "d", Folder: "/f", Snapshot: "20261201T101500.123456Z", Complete: true, Base: "base-0123456789abcdef"}, ps))
	f.Add(encodeSync(Head{}, nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, got, err := decodeSync(b)
		if err != nil {
			return
		}
		for i, p := range got {
			if snapstore.CheckPath(p.Path) != nil || (i > 0 && !tree.PathLess(got[i-1].Path, p.Path)) {
				t.Fatalf("accepted %q", p.Path)
			}
		}
	})
}

// TestAKilledBaseWriteIsRemoved: a base file a save killed mid-write left
// under its temporary name (as large as the record) is removed by the next
// commit of the record; one a live process is writing is left.
func TestAKilledBaseWriteIsRemoved(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(Dir(dir), 0o700)
	gone := testproc.Gone(t)
	dead := fmt.Sprintf(".base-0123456789abcdef.tmp-%d-1", gone)
	live := fmt.Sprintf(".base-fedcba9876543210.tmp-%d-2", os.Getpid())
	for _, n := range []string{dead, live} {
		os.WriteFile(filepath.Join(Dir(dir), n), make([]byte, 4096), 0o600)
	}
	h := Head{DiskID: "disk", Folder: "/f", Snapshot: "20261201T101500.123456Z", Complete: true}
	if err := Write(dir, h, nil, func(add func(*Path) error) error {
		return add(&Path{Path: ".", F: &Side{Kind: tree.KindDir}, D: &Side{Kind: tree.KindDir}})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(Dir(dir), dead)); err == nil {
		t.Error("the killed save's base is left")
	}
	if _, err := os.Lstat(filepath.Join(Dir(dir), live)); err != nil {
		t.Errorf("a base being written was removed: %v", err)
	}
}
