//go:build linux

package diskid

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// tmpfs mounts a real tmpfs at a new folder (root only) and returns it,
// with the unmount; mounting again at the same folder is the test's to do.
func tmpfs(t *testing.T, dir string) func() {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts real tmpfs: run it as root (CI does)")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("rambar-test", dir, "tmpfs", 0, "size=4m,mode=0700"); err != nil {
		t.Fatalf("mount tmpfs: %v", err)
	}
	done := false
	unmount := func() {
		if !done {
			done = true
			if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
				t.Errorf("unmount %s: %v", dir, err)
			}
		}
	}
	t.Cleanup(unmount)
	return unmount
}

// TestIdentityTellsFileSystemsApart: the identity of a mounted tmpfs is the
// same every time it is read, another tmpfs has another, and a tmpfs made
// again at the same folder (the same device number may come back) has
// another too, as has the folder below it.
func TestIdentityTellsFileSystemsApart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Work")
	os.MkdirAll(dir, 0o700)
	below, err := Of(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{below: "the folder below"}
	for round := 0; round < 100; round++ {
		unmount := tmpfs(t, dir)
		a, err := Of(dir)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := Of(dir); again != a {
			t.Fatalf("round %d: read twice: %q then %q", round, a, again)
		}
		if !strings.HasPrefix(a, "linux:") || !strings.Contains(a, ":born=") {
			t.Errorf("round %d: identity %q: want device, inode and birth time", round, a)
		}
		if what, ok := seen[a]; ok {
			t.Fatalf("round %d: the tmpfs made again has the identity of %s: %q", round, what, a)
		}
		seen[a] = "an earlier tmpfs"
		unmount()
	}
	if _, err := Of(filepath.Join(dir, "missing")); !errors.Is(err, ErrNoIdentity) {
		t.Errorf("identity of a missing folder: %v", err)
	}
}

// TestMarkOnTheRootNotInTheTree: a mark is an attribute of the disk's root
// folder: nothing in its tree, it survives rm -rf and git clean -fdx at the
// root, reads back as written, is For the disk it was written for, and a
// copy of it on another disk (cp -a of the root) is not.
func TestMarkOnTheRootNotInTheTree(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "A"), filepath.Join(base, "B")
	tmpfs(t, a)
	tmpfs(t, b)
	m, err := NewMark(a, "/home/u/.local/share/rambar", "A", KindKept, "0123abcd")
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteMark(a, m); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(a); len(ents) != 0 {
		t.Errorf("the mark put %v in the disk's tree", ents)
	}
	for _, c := range [][]string{{"git", "init", "-q", a}, {"git", "-C", a, "clean", "-fdxq"}, {"sh", "-c", "rm -rf " + a + "/* " + a + "/.[!.]*"}} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v %s", c, err, out)
		}
	}
	got, err := ReadMark(a)
	if err != nil || got != m || !got.For(a) {
		t.Fatalf("after git clean and rm -rf: %+v %v, want %+v for the disk", got, err, m)
	}
	if !strings.Contains(got.Owner(), "/home/u/.local/share/rambar") || !strings.Contains(got.Owner(), "uid 0") {
		t.Errorf("owner %q: want the data folder and uid", got.Owner())
	}
	if out, err := exec.Command("cp", "-a", "--preserve=all", a+"/.", b).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v %s", err, out)
	}
	copied, err := ReadMark(b)
	if err != nil {
		t.Fatalf("cp -a copied no mark (%v): the copy case is not tested", err)
	}
	if copied.For(b) {
		t.Error("a mark copied onto another disk is taken for that disk's")
	}
	if err := RemoveMark(a); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMark(a); !errors.Is(err, ErrNoMark) {
		t.Errorf("after RemoveMark: %v", err)
	}
	if _, err := ReadMark(filepath.Join(base)); !errors.Is(err, ErrNoMark) {
		t.Errorf("a folder never marked: %v", err)
	}
}

// TestDamagedMarksAreRefused: marks RAMBar would not write (crafted by
// anyone who can set the root's attributes) are refused when read.
func TestDamagedMarksAreRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "D")
	tmpfs(t, dir)
	good := Mark{Volume: "linux:x", Data: "/d", UID: 1, Name: "D", Kind: KindKept, ID: "ab"}
	for _, c := range []struct {
		name string
		mod  func(m *Mark)
		raw  string
	}{
		{name: "not JSON", raw: "{"},
		{name: "no volume", mod: func(m *Mark) { m.Volume = "" }},
		{name: "relative data folder", mod: func(m *Mark) { m.Data = "data" }},
		{name: "unclean data folder", mod: func(m *Mark) { m.Data = "/d/../etc" }},
		{name: "negative uid", mod: func(m *Mark) { m.UID = -1 }},
		{name: "unknown kind", mod: func(m *Mark) { m.Kind = "mine" }},
		{name: "kept without id", mod: func(m *Mark) { m.ID = "" }},
		{name: "plain with id", mod: func(m *Mark) { m.Kind = KindPlain }},
		{name: "too long", raw: `{"volume":"` + strings.Repeat("v", maxMark) + `"}`},
	} {
		raw := []byte(c.raw)
		if c.mod != nil {
			m := good
			c.mod(&m)
			raw, _ = json.Marshal(m)
		}
		if err := unix.Lsetxattr(dir, userAttr, raw, 0); err != nil {
			t.Fatal(err)
		}
		if m, err := ReadMark(dir); err == nil || errors.Is(err, ErrNoMark) {
			t.Errorf("%s: read as %+v, %v; want a damaged mark", c.name, m, err)
		}
		if c.mod != nil {
			m := good
			c.mod(&m)
			if err := WriteMark(dir, m); err == nil {
				t.Errorf("%s: written", c.name)
			}
		}
	}
}

// TestRegistry: records are put, got back by exact name, matched against
// the disk mounted now, dropped only while they are of the disk ejected,
// and damaged or misplaced ones know nothing.
func TestRegistry(t *testing.T) {
	base := t.TempDir()
	g := NewRegistry(filepath.Join(base, "data"))
	mp := filepath.Join(base, "mnt", "Work")
	unmount := tmpfs(t, mp)
	local, err := Of(mp)
	if err != nil {
		t.Fatal(err)
	}
	r := Record{Name: "Work", Volume: local, Local: local, MountPoint: mp, Kind: KindKept, ID: "ab"}
	if err := g.Put(r); err != nil {
		t.Fatal(err)
	}
	got, ok := g.Get("Work")
	if !ok || got.Local != local || got.Made.IsZero() || !got.Matches("", mp) || !got.Live() {
		t.Fatalf("Get: %+v %v", got, ok)
	}
	if _, ok := g.Get("work"); ok {
		t.Error("a record found under another case of its name")
	}
	if got.Matches("macos:uuid=00", mp) {
		t.Error("matched although the engine's identity differs")
	}
	unmount()
	tmpfs(t, mp) // the same name and place, another disk
	if got.Matches("", mp) || got.Live() {
		t.Error("the record matches a disk made again at its place")
	}
	if err := g.Drop("Work", "linux:another"); err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Get("Work"); !ok {
		t.Error("dropped while it was the record of another disk")
	}
	os.WriteFile(g.kind().Path("X"), []byte(`{"name":"Y","local":"l","mount_point":"/x"}`), 0o600)
	os.WriteFile(g.kind().Path("Bad"), []byte("{"), 0o600)
	for _, name := range []string{"X", "Y", "Bad"} {
		if r, ok := g.Get(name); ok {
			t.Errorf("Get(%q) = %+v: a misplaced or a damaged record is no record", name, r)
		}
	}
	if err := g.Drop("Work", local); err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Get("Work"); ok {
		t.Error("not dropped")
	}
}

// TestRegistryReadsAnOlderRAMBarsRecords: a record kept under a hash of
// the name (as RAMBar kept them before the one rule of internal/record) is
// read, moved under the rule's key at its next write, and dropped wherever
// it is.
func TestRegistryReadsAnOlderRAMBarsRecords(t *testing.T) {
	g := NewRegistry(t.TempDir())
	os.MkdirAll(g.Dir, 0o700)
	old := filepath.Join(g.Dir, hashKey("Work")+".json")
	os.WriteFile(old, []byte(`{"name":"Work","local":"l1","mount_point":"/m/Work","kind":"kept","id":"ab"}`), 0o600)
	r, ok := g.Get("Work")
	if !ok || r.Local != "l1" || r.ID != "ab" {
		t.Fatalf("the older record: %+v %v", r, ok)
	}
	r.Local = "l2"
	if err := g.Put(r); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(old); err == nil {
		t.Error("the older copy is left beside the new record")
	}
	if r, ok := g.Get("Work"); !ok || r.Local != "l2" {
		t.Errorf("after the write: %+v %v", r, ok)
	}
	os.WriteFile(old, []byte(`{"name":"Work","local":"l2","mount_point":"/m/Work"}`), 0o600)
	if err := g.Drop("Work", "l2"); err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Get("Work"); ok {
		t.Error("dropped, still found (under the older key)")
	}
}
