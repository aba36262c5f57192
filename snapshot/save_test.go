package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"rambar/internal/testdigest"
	"rambar/internal/testtree"
	"rambar/snapstore"
	"rambar/tree"
)

func TestDiffIndexFindsSameChangedAndGone(t *testing.T) {
	id := func(n uint64) tree.Ident { return tree.Ident{Ino: n} }
	items := func(ps ...string) []tree.Scanned {
		var out []tree.Scanned
		for i, p := range ps {
			out = append(out, tree.Scanned{Rel: p, Id: id(uint64(i + 1))})
		}
		return out
	}
	x := indexOf(t, []string{".", "a", "a/b", "c"}, []tree.Ident{id(1), id(2), id(3), id(4)})
	cases := []struct {
		name    string
		x       *snapstore.Index
		items   []tree.Scanned
		same    []bool
		gone    []string
		changed int
	}{
		{"no index", nil, items(".", "a"), []bool{false, false}, nil, 2},
		{"nothing changed", x, items(".", "a", "a/b", "c"), []bool{true, true, true, true}, nil, 0},
		{"last gone", x, items(".", "a", "a/b"), []bool{true, true, true}, []string{"c"}, 0},
		{"folder gone, one added", x, items(".", "b", "c"), []bool{true, false, false}, []string{"a", "a/b"}, 2},
		{"identity changed", x, []tree.Scanned{{Rel: ".", Id: id(1)}, {Rel: "a", Id: id(9)}, {Rel: "a/b", Id: id(3)}, {Rel: "c", Id: id(4)}}, []bool{true, false, true, true}, nil, 1},
	}
	for _, c := range cases {
		// Alone, and going on where a scan's match with the index stopped.
		var m *snapstore.IndexMatch
		if c.x != nil {
			m = c.x.Match()
			for i := range c.items {
				m.See(&c.items[i])
			}
		}
		alone, _ := snapstore.DiffIndex(c.x, c.items, nil)
		for _, m := range []*snapstore.IndexMatch{nil, m} {
			d, ok := snapstore.DiffIndex(c.x, c.items, m)
			if !ok || !reflect.DeepEqual(d.Same, c.same) || !reflect.DeepEqual(d.Gone, c.gone) || d.Changed != c.changed {
				t.Errorf("%s (match %v): same %v gone %v changed %d; want %v %v %d", c.name, m != nil, d.Same, d.Gone, d.Changed, c.same, c.gone, c.changed)
			}
			if !reflect.DeepEqual(d, alone) {
				t.Errorf("%s: going on from the match gave %+v, alone %+v", c.name, d, alone)
			}
		}
	}
}

func TestPackGroupsPacksSmallFilesOnly(t *testing.T) {
	sizes := func(es ...int64) []copyJob {
		var out []copyJob
		for i, s := range es {
			out = append(out, copyJob{ref: int32(i), size: s})
		}
		return out
	}
	cases := []struct {
		name   string
		in     []copyJob
		packs  []int // files per pack
		single int
	}{
		{"none", nil, nil, 0},
		{"one small is an object", sizes(10), nil, 1},
		{"small ones packed, large alone", sizes(10, 20, packMax+1, 30), []int{3}, 1},
		{"small ones in one pack", sizes(packMax, packMax, packMax, packMax, 1, 2), []int{6}, 0},
	}
	big := make([]int64, 0, 200)
	for i := 0; i < 200; i++ {
		big = append(big, packMax)
	}
	cases = append(cases, struct {
		name   string
		in     []copyJob
		packs  []int
		single int
	}{"many small: a pack closes at packBytes", sizes(big...), []int{packBytes / packMax, 200 - packBytes/packMax}, 0})
	for _, c := range cases {
		small, packs, single := packGroups(c.in)
		var got []int
		for _, p := range packs {
			got = append(got, p[1]-p[0])
			for _, k := range small[p[0]:p[1]] {
				if c.in[k].size > packMax {
					t.Errorf("%s: file %d of %d bytes packed", c.name, c.in[k].ref, c.in[k].size)
				}
			}
		}
		if !reflect.DeepEqual(got, c.packs) || len(single) != c.single {
			t.Errorf("%s: packs %v, %d single; want %v, %d", c.name, got, len(single), c.packs, c.single)
		}
	}
}

func TestMergeDeltaFoldsChanges(t *testing.T) {
	e := func(p, obj string) tree.Entry {
		return tree.Entry{Path: p, Kind: tree.KindFile, Obj: tree.ObjName{Save: obj}}
	}
	cases := []struct {
		name        string
		prev        *snapstore.Manifest
		fresh       []tree.Entry
		gone        []string
		wantEntries []tree.Entry
		wantRemoved []string
	}{
		{"first delta", &snapstore.Manifest{}, []tree.Entry{e("a", "")}, []string{"b"}, []tree.Entry{e("a", "")}, []string{"b"}},
		{"fresh replaces prev", &snapstore.Manifest{Entries: []tree.Entry{e("a", "1/0"), e("c", "1/1")}},
			[]tree.Entry{e("a", "")}, nil, []tree.Entry{e("a", ""), e("c", "1/1")}, nil},
		{"gone drops prev's change", &snapstore.Manifest{Entries: []tree.Entry{e("a", "1/0")}, Removed: []string{"x"}},
			nil, []string{"a"}, []tree.Entry{}, []string{"a", "x"}},
		{"removed path back", &snapstore.Manifest{Removed: []string{"b", "d"}},
			[]tree.Entry{e("b", "")}, nil, []tree.Entry{e("b", "")}, []string{"d"}},
	}
	for _, c := range cases {
		entries, rm := snapstore.MergeDelta(c.prev, c.fresh, c.gone)
		if !reflect.DeepEqual(entries, c.wantEntries) || !reflect.DeepEqual(rm, c.wantRemoved) {
			t.Errorf("%s: %v %v; want %v %v", c.name, entries, rm, c.wantEntries, c.wantRemoved)
		}
	}
}

// TestSavePhasesOneByOne runs a save's phases alone on a fresh store: the
// plan of a tree with no index copies every file, the copy names each
// file's object, and once the manifest is written and committed the store
// restores the tree.
func TestSavePhasesOneByOne(t *testing.T) {
	root, s := t.TempDir(), &Store{Store: &snapstore.Store{Dir: t.TempDir()}}
	for i := 0; i < 5; i++ {
		testtree.Write(t, root, fmt.Sprintf("d/f%d", i), strings.Repeat("x", i))
	}
	want := testdigest.Of(t, root)
	items, err := tree.Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.plan(root, "", nil, items, nil, nil, nil, nil, nil)
	if err != nil || p.delta != nil || p.full == nil || len(p.full.items) != 7 || len(p.jobs) != 5 || p.files != 5 || p.bytes != 10 {
		t.Fatalf("plan = %+v, %v; want a full manifest of 7 entries copying 5 files", p, err)
	}
	id := snapstore.NewID(time.Now(), "")
	os.MkdirAll(s.Path("objects", id), 0o700)
	ext := &extentsOf{}
	next, err := s.copyObjects(context.Background(), root, id, p.jobs, 0, p.path, &copyCheck{scanned: p.scanned}, ext, nil)
	if err != nil || next == 0 {
		t.Fatalf("copy: objects up to %d, %v", next, err)
	}
	for _, j := range p.jobs {
		if j.state != jobCopied {
			t.Errorf("%s: copy state %d", p.path(j.ref), j.state)
		}
		if _, err := os.Stat(filepath.Join(s.Dir, "objects", id, fmt.Sprint(j.num))); err != nil {
			t.Errorf("%s: object %d: %v", p.path(j.ref), j.num, err)
		}
	}
	if _, err := p.full.readExtras(); err != nil {
		t.Fatal(err)
	}
	ms, err := s.stream(p, id, 10, ext.m)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.writeSnapshot(ms); err != nil {
		t.Fatal(err)
	}
	if cur, _ := s.Current(); cur != "" {
		t.Fatalf("current is %q before the commit", cur)
	}
	if err := s.Commit(id); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := s.Restore(context.Background(), "", out, "", nil); err != nil {
		t.Fatal(err)
	}
	testdigest.Same(t, want, testdigest.Of(t, out))
}

func TestCheckPathRefusesAnythingButCleanRelativePaths(t *testing.T) {
	for _, p := range []string{".", "a", "a/b", "a.b/..c", "...", "a/.x"} {
		if err := snapstore.CheckPath(p); err != nil {
			t.Errorf("checkPath(%q) = %v", p, err)
		}
	}
	for _, p := range []string{"", "/", "/a", "a/", "a//b", "./a", "a/./b", "..", "a/..", "../a", "a\x00b", strings.Repeat("n", 256), strings.Repeat("a/", 2049)} {
		if err := snapstore.CheckPath(p); err == nil {
			t.Errorf("checkPath(%q) accepted", p)
		}
	}
}

// TestPathGoneDuringTheSaveIsNotAnError: paths scanned that are gone by
// the time a save copies them or reads their metadata do not fail the save:
// the round that found them gone does not commit, the next one (the disk
// now holding still) saves the tree without them, and nothing of the
// first round's copies is left in the store.
func TestPathGoneDuringTheSaveIsNotAnError(t *testing.T) {
	root, s := t.TempDir(), &Store{Store: &snapstore.Store{Dir: t.TempDir()}}
	testtree.Write(t, root, "d/f", "data")
	testtree.Write(t, root, "d/keep", "kept")
	if err := os.Symlink("f", filepath.Join(root, "d/link")); err != nil {
		t.Fatal(err)
	}
	items, err := tree.Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "d/link"))
	os.Remove(filepath.Join(root, "d/f"))
	ls := &liveSave{s: s, root: root, diskID: "d"}
	res, err := ls.run(context.Background(), items)
	if err != nil || res.Unchanged || res.InUse != nil || res.Files != 1 {
		t.Fatalf("save = %+v, %v; want a consistent snapshot of the one file left", res, err)
	}
	m, err := s.Manifest(res.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range m.Entries {
		paths = append(paths, e.Path)
	}
	if strings.Join(paths, " ") != ". d d/keep" {
		t.Errorf("snapshot holds %v", paths)
	}
	if ents, _ := os.ReadDir(s.Path("objects", res.Snapshot)); len(ents) != 1 {
		t.Errorf("objects of the save: %d, want the one file's", len(ents))
	}
}

// indexOf is the index of paths with ids, opened as a save would.
func indexOf(t testing.TB, paths []string, ids []tree.Ident) *snapstore.Index {
	t.Helper()
	w := snapstore.NewIndexWriter("", "", len(paths))
	for i, p := range paths {
		w.Add(p, ids[i], "", nil)
	}
	x, err := snapstore.OpenIndex(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return x
}
