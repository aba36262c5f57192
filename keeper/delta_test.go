package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rambar/snapstore"
	"rambar/tree"

	"rambar/ramdisk"
)

// snapFiles lists a store's snapshot files by extension (.snap, .base).
func snapFiles(t *testing.T, dir, ext string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "snapshots", "*"+ext))
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(paths))
	for i, p := range paths {
		ids[i] = strings.TrimSuffix(filepath.Base(p), ext)
	}
	return ids
}

// objectCount counts the objects a store holds.
func objectCount(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(filepath.Join(dir, "objects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// TestDeltaChainRestoresAndPrunes saves a full tree, then a chain of small
// changes (files rewritten, added, removed, a folder removed and one
// re-added): each save after the first writes a delta on the full base,
// every snapshot restores to exactly its tree, and pruning hides the base
// while deltas need it, then removes it and its unused objects.
func TestDeltaChainRestoresAndPrunes(t *testing.T) {
	f := newFixture(t)
	st, _ := f.k.Setup("Delta", Options{Mode: ramdisk.Keep, Snapshots: 3})
	v := f.create("Delta")
	f.k.Load(f.ctx, v, nil)
	for i := 0; i < 40; i++ {
		write(t, v.MountPoint, fmt.Sprintf("d%d/f%d", i%4, i), strings.Repeat("z", 10+i))
	}
	steps := []struct {
		name   string
		change func(root string)
	}{
		{"full", func(string) {}},
		{"rewrite", func(r string) { write(t, r, "d0/f0", "one") }},
		{"add and remove", func(r string) { write(t, r, "new/x", "x"); os.Remove(filepath.Join(r, "d1/f1")) }},
		{"rewrite again, folder gone", func(r string) { write(t, r, "d0/f0", "two"); os.RemoveAll(filepath.Join(r, "d2")) }},
		{"removed path back, added one gone", func(r string) {
			write(t, r, "d1/f1", "back")
			os.RemoveAll(filepath.Join(r, "new"))
		}},
		{"chmod", func(r string) { os.Chmod(filepath.Join(r, "d3/f3"), 0o600) }},
	}
	var ids []string
	trees := map[string]tree.Digest{}
	s := f.k.store(st)
	for i, step := range steps {
		step.change(v.MountPoint)
		want := digest(t, v.MountPoint)
		res, err := f.k.Save(f.ctx, v, SaveOptions{})
		if err != nil || res.Unchanged {
			t.Fatalf("%s: %+v %v", step.name, res, err)
		}
		ids = append(ids, res.Snapshot)
		trees[res.Snapshot] = want
		h, err := s.ReadManifest(res.Snapshot, false)
		if err != nil {
			t.Fatal(err)
		}
		if wantDelta := i > 0; (h.Base != "") != wantDelta {
			t.Errorf("%s: base %q, want a delta: %v", step.name, h.Base, wantDelta)
		} else if wantDelta && h.Base != ids[0] {
			t.Errorf("%s: delta on %s, want on the full save %s", step.name, h.Base, ids[0])
		}
		if h.Files != want.Files() {
			t.Errorf("%s: header says %d files, the tree has %d", step.name, h.Files, want.Files())
		}
		// Every listed snapshot restores to exactly its tree.
		for _, id := range snapFiles(t, st.Backing, ".snap") {
			out := t.TempDir()
			if _, err := s.Restore(f.ctx, id, out, "", nil); err != nil {
				t.Fatalf("%s: restore %s: %v", step.name, id, err)
			}
			sameTree(t, trees[id], digest(t, out))
		}
	}
	// 6 saves, 3 kept: the full base is hidden, not listed or restorable.
	if got := snapFiles(t, st.Backing, ".snap"); strings.Join(got, ",") != strings.Join(ids[3:], ",") {
		t.Errorf("listed %v, want %v", got, ids[3:])
	}
	if got := snapFiles(t, st.Backing, ".base"); len(got) != 1 || got[0] != ids[0] {
		t.Errorf("hidden bases %v, want [%s]", got, ids[0])
	}
	if _, err := s.Resolve(ids[0]); err == nil {
		t.Error("the hidden base restores by its ID")
	}
	// A compaction: the next save writes a full manifest; once the deltas
	// on the old base are pruned, the base and its unused objects go.
	f.k.deltaLimit = func(int) int { return 0 }
	for i := 0; i < 3; i++ {
		write(t, v.MountPoint, "d0/f0", fmt.Sprint("compact", i))
		want := digest(t, v.MountPoint)
		res, err := f.k.Save(f.ctx, v, SaveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if h, _ := s.ReadManifest(res.Snapshot, false); h == nil || h.Base != "" {
			t.Fatalf("save past the delta limit wrote %+v, want a full manifest", h)
		}
		out := t.TempDir()
		if _, err := s.Restore(f.ctx, "", out, "", nil); err != nil {
			t.Fatal(err)
		}
		sameTree(t, want, digest(t, out))
	}
	if got := snapFiles(t, st.Backing, ".base"); len(got) != 0 {
		t.Errorf("hidden bases %v remain with no delta on them", got)
	}
	// 3 full snapshots: the first save's pack (its 40 files, of which 27
	// are still used), d1/f1 and d3/f3 as the deltas rewrote them, and
	// d0/f0 of each of the 3 full saves. (Before full saves packed small
	// files: 32, one object per file.)
	if n := objectCount(t, st.Backing); n != 6 {
		t.Errorf("%d objects stored, want 6", n)
	}
}

// TestRestoreThenSaveRecordsDiskChangesExactly restores a delta snapshot
// over a disk and changes the disk before the next save: the restore's
// index names exactly the snapshot's paths, so the delta saved next
// records additions and removals made after the restore.
func TestRestoreThenSaveRecordsDiskChangesExactly(t *testing.T) {
	f := newFixture(t)
	f.k.Setup("RS", Options{Mode: ramdisk.Keep, Snapshots: 5})
	v := f.create("RS")
	f.k.Load(f.ctx, v, nil)
	write(t, v.MountPoint, "a/1", "1")
	write(t, v.MountPoint, "a/2", "2")
	f.k.Save(f.ctx, v, SaveOptions{})
	write(t, v.MountPoint, "b/3", "3")
	first, err := f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, v.MountPoint, "c/4", "4")
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.k.Restore(f.ctx, v, RestoreOptions{Snapshot: first.Snapshot, Force: true}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(v.MountPoint, "a/1"))
	write(t, v.MountPoint, "d/5", "5")
	want := digest(t, v.MountPoint)
	res, err := f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.CopiedFiles != 1 || res.Removed != 1 {
		t.Errorf("save after restore copied %d, removed %d; want 1 and 1", res.CopiedFiles, res.Removed)
	}
	out := t.TempDir()
	st, _ := f.k.State("RS")
	if _, err := f.k.store(st).Restore(f.ctx, "", out, "", nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, want, digest(t, out))
}

// TestStoreWrittenBeforeDeltasStillLoads restores both snapshots of a store
// written by the version 1 code (testdata/store-v1), then saves on top of
// it: the first save after the upgrade and the delta after it restore whole.
func TestStoreWrittenBeforeDeltasStillLoads(t *testing.T) {
	var want struct {
		Current   string        `json:"current"`
		Snapshots []string      `json:"snapshots"`
		Trees     []tree.Digest `json:"trees"`
	}
	b, err := os.ReadFile(filepath.Join(fixtures, "store-v1", "want.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	disks := filepath.Join(f.k.Data, "disks")
	os.MkdirAll(disks, 0o700)
	if out, err := exec.Command("cp", "-r", filepath.Join(fixtures, "store-v1", "Old"), disks).CombinedOutput(); err != nil {
		t.Fatalf("copy fixture: %v %s", err, out)
	}
	snaps, err := f.k.Snapshots("Old")
	if err != nil || len(snaps) != 2 || !snaps[1].Current || snaps[1].ID != want.Current {
		t.Fatalf("snapshots of the old store: %+v %v", snaps, err)
	}
	v := f.create("Old")
	for i, id := range want.Snapshots {
		if _, err := f.k.Restore(f.ctx, v, RestoreOptions{Snapshot: id, Force: true}); err != nil {
			t.Fatalf("restore old snapshot %s: %v", id, err)
		}
		sameTree(t, want.Trees[i], digest(t, v.MountPoint))
	}
	// The disk now holds the current tree with a fresh index: a change is
	// saved as a delta on the version 1 manifest, and restores whole.
	write(t, v.MountPoint, "README", "after the upgrade\n")
	now := digest(t, v.MountPoint)
	res, err := f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil || res.CopiedFiles != 1 {
		t.Fatalf("save on the old store: %+v %v", res, err)
	}
	st, _ := f.k.State("Old")
	s := f.k.store(st)
	if h, err := s.ReadManifest(res.Snapshot, false); err != nil || h.Base != want.Current {
		t.Errorf("save on the old store: %+v %v, want a delta on %s", h, err, want.Current)
	}
	out := t.TempDir()
	if _, err := s.Restore(f.ctx, "", out, "", nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, now, digest(t, out))
}

// TestDeltaPacksSmallFiles changes many small files and one large one: the
// delta packs the small ones into one object (the large one gets its own),
// every snapshot restores whole, a pack stays while any kept snapshot
// uses a file in it, and goes when none does.
func TestDeltaPacksSmallFiles(t *testing.T) {
	f := newFixture(t)
	st, _ := f.k.Setup("Pack", Options{Mode: ramdisk.Keep, Snapshots: 1})
	v := f.create("Pack")
	f.k.Load(f.ctx, v, nil)
	for i := 0; i < 30; i++ {
		write(t, v.MountPoint, fmt.Sprintf("d%d/f%d", i%3, i), strings.Repeat("a", 100+i))
	}
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		write(t, v.MountPoint, fmt.Sprintf("d%d/f%d", i%3, i), strings.Repeat("p", 1000*i))
	}
	write(t, v.MountPoint, "big", strings.Repeat("B", 64<<10+1))
	want := digest(t, v.MountPoint)
	res, err := f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil || res.CopiedFiles != 11 {
		t.Fatalf("delta save: %+v %v", res, err)
	}
	packed := res.Snapshot
	objs, _ := os.ReadDir(filepath.Join(st.Backing, "objects", packed))
	if len(objs) != 2 {
		t.Errorf("the delta wrote %d objects for 10 small files and a large one, want 2 (a pack and the large file)", len(objs))
	}
	s := f.k.store(st)
	check := func(what string) {
		t.Helper()
		out := t.TempDir()
		if _, err := s.Restore(f.ctx, "", out, "", nil); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		sameTree(t, want, digest(t, out))
	}
	check("delta with a pack")
	// Through a CopyFile hook, packed files reach it as files of their own.
	hooked := *s
	calls := 0
	var mu sync.Mutex
	hooked.CopyFile = func(ctx context.Context, src, dst string) error {
		mu.Lock()
		calls++
		mu.Unlock()
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	}
	out := t.TempDir()
	if _, err := hooked.Restore(f.ctx, "", out, "", nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, want, digest(t, out))
	if calls != 31 {
		t.Errorf("CopyFile called %d times, want 31", calls)
	}
	// A compaction with one snapshot kept: the full manifest still uses
	// the packed files, so the pack stays.
	f.k.deltaLimit = func(int) int { return 0 }
	write(t, v.MountPoint, "d2/f29", "other")
	want = digest(t, v.MountPoint)
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	check("full manifest using packed files")
	if objs, _ := os.ReadDir(filepath.Join(st.Backing, "objects", packed)); len(objs) != 2 {
		t.Errorf("pack and large object of the pruned delta: %d left, want both", len(objs))
	}
	// Every packed file and the large one rewritten: nothing uses them.
	for i := 0; i < 10; i++ {
		write(t, v.MountPoint, fmt.Sprintf("d%d/f%d", i%3, i), "gone")
	}
	write(t, v.MountPoint, "big", "small now")
	want = digest(t, v.MountPoint)
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	check("after the packed files changed")
	if objs, err := os.ReadDir(filepath.Join(st.Backing, "objects", packed)); err == nil && len(objs) > 0 {
		t.Errorf("%d objects no snapshot uses remain", len(objs))
	}
}

// TestObjRefReadsRangesAndRejectsDamage: an entry's Obj names an object
// or a range of a pack; a malformed one is refused as a damaged manifest.
func TestObjRefReadsRangesAndRejectsDamage(t *testing.T) {
	cases := []struct {
		obj  string
		size int64
		want tree.ObjRef
		bad  bool
	}{
		{"20260101T000000.000001Z/1", 34, tree.ObjRef{Rel: "20260101T000000.000001Z/1"}, false},
		{"20260101T000000.000001Z/1@12", 34, tree.ObjRef{Rel: "20260101T000000.000001Z/1", Off: 12, Size: 34, Packed: true}, false},
		{"20260101T000000.000001Z/1@x", 34, tree.ObjRef{}, true},
		{"20260101T000000.000001Z/1@-1", 34, tree.ObjRef{}, true},
		{"20260101T000000.000001Z/1@12", -1, tree.ObjRef{}, true},
		{"20260101T000000.000001Z/x", 34, tree.ObjRef{}, true},
		{"20260101T000000.000001Z", 34, tree.ObjRef{}, true},
		{"../../etc/hostname", 34, tree.ObjRef{}, true},
		{"20260101T000000.000001Z/../../x", 34, tree.ObjRef{}, true},
		{"20260101T000000.000001Z/-1", 34, tree.ObjRef{}, true},
	}
	ref := func(obj string, size int64) (tree.ObjRef, error) {
		o, err := snapstore.ParseObj(obj) // a version 4 manifest keeps numbers; the text form is that of older ones
		if err != nil {
			return tree.ObjRef{}, fmt.Errorf("%w: %v", snapstore.ErrBadManifest, err)
		}
		return snapstore.ObjRefOf(tree.Entry{Obj: o, Size: size})
	}
	for _, c := range cases {
		got, err := ref(c.obj, c.size)
		if (err != nil) != c.bad || got != c.want || (err != nil && !errors.Is(err, snapstore.ErrBadManifest)) {
			t.Errorf("objRef(%q, size %d) = %+v, %v; want %+v, bad %v", c.obj, c.size, got, err, c.want, c.bad)
		}
	}
}
