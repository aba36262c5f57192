package keeper

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"rambar/snapshot"
	"rambar/snapstore"
	"rambar/tree"

	"rambar/ramdisk"
)

// craftedStore saves a small tree for disk "Evil" and returns the fixture,
// the store and its current manifest, for a test to tamper with.
func craftedStore(t *testing.T) (*fixture, *snapshot.Store, *snapstore.Manifest) {
	t.Helper()
	f := newFixture(t)
	st, err := f.k.Setup("Evil", Options{Mode: ramdisk.Keep})
	if err != nil {
		t.Fatal(err)
	}
	v := f.create("Evil")
	f.k.Load(f.ctx, v, nil)
	write(t, v.MountPoint, "dir/file", "innocent")
	res, err := f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.eject(v)
	s := f.k.store(st)
	m, err := s.Manifest(res.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	return f, s, m
}

// rewrite stores m as its snapshot's manifest, unchecked.
func rewrite(t *testing.T, s *snapshot.Store, m *snapstore.Manifest) {
	t.Helper()
	if err := os.WriteFile(s.Path("snapshots", m.ID+".snap"), snapstore.EncodeManifest(m), 0o600); err != nil {
		t.Fatal(err)
	}
}

// outsideUntouched fails when anything appeared in dir besides want.
func outsideUntouched(t *testing.T, dir string, want ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.Contains(strings.Join(want, "\x00")+"\x00", e.Name()+"\x00") {
			t.Errorf("the restore wrote %s outside the disk", filepath.Join(dir, e.Name()))
		}
	}
}

// TestCraftedStoresAreRefused restores crafted snapshots: each is refused
// with a clear error, and nothing is written outside the disk or copied
// from outside the store.
func TestCraftedStoresAreRefused(t *testing.T) {
	fileObj := func(m *snapstore.Manifest) tree.Entry {
		for _, e := range m.Entries {
			if e.Kind == tree.KindFile {
				return e
			}
		}
		t.Fatal("no file in the manifest")
		return tree.Entry{}
	}
	cases := []struct {
		name   string
		craft  func(m *snapstore.Manifest, s *snapshot.Store, outside string)
		reason string
	}{
		{"../ in a path", func(m *snapstore.Manifest, _ *snapshot.Store, _ string) {
			e := fileObj(m)
			e.Path = "../escape"
			m.Entries = append(m.Entries, e)
		}, `bad path "../escape"`},
		{"absolute path", func(m *snapstore.Manifest, _ *snapshot.Store, _ string) {
			e := fileObj(m)
			e.Path = "/tmp/escape"
			m.Entries = append(m.Entries, e)
		}, "bad path"},
		{"a path twice", func(m *snapstore.Manifest, _ *snapshot.Store, _ string) {
			m.Entries = append(m.Entries, m.Entries[len(m.Entries)-1])
		}, "out of order or twice"},
		{"symlink, then a file through it", func(m *snapstore.Manifest, _ *snapshot.Store, outside string) {
			e := fileObj(m)
			e.Path = "link/escape"
			m.Entries = append(m.Entries, tree.Entry{Path: "link", Kind: tree.KindSymlink, Mode: 0o777, Link: outside}, e)
		}, `"link/escape" is not inside a folder`},
		{"object climbing out of objects/", func(m *snapstore.Manifest, _ *snapshot.Store, _ string) {
			for i := range m.Entries {
				if m.Entries[i].Kind == tree.KindFile {
					m.Entries[i].Obj.Save = "../../../../../../../../etc/hostname"
				}
			}
		}, "bad object"},
		{"packed file past its pack's end", func(m *snapstore.Manifest, _ *snapshot.Store, _ string) {
			for i := range m.Entries {
				if m.Entries[i].Kind == tree.KindFile { // an 8-byte object: 4 bytes left of the 8 the entry needs
					m.Entries[i].Obj.Off, m.Entries[i].Obj.Packed = 4, true
				}
			}
		}, "pack ends 4 bytes early"},
		{"object replaced by a symlink", func(m *snapstore.Manifest, s *snapshot.Store, _ string) {
			e := fileObj(m)
			p := filepath.Join(s.Path("objects"), filepath.FromSlash(e.Obj.String()))
			os.Remove(p)
			os.Symlink("/etc/hostname", p)
		}, "not followed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, s, m := craftedStore(t)
			outside := f.eng.Root
			c.craft(m, s, outside)
			rewrite(t, s, m)
			v := f.create("Evil")
			_, err := f.k.Load(f.ctx, v, nil)
			if err == nil || !strings.Contains(err.Error(), c.reason) {
				t.Fatalf("Load = %v, want an error saying %q", err, c.reason)
			}
			outsideUntouched(t, outside, "Evil")
			hostname, _ := os.ReadFile("/etc/hostname")
			filepath.WalkDir(v.MountPoint, func(p string, d os.DirEntry, err error) error {
				if b, _ := os.ReadFile(p); err == nil && !d.IsDir() && len(hostname) > 0 && string(b) == string(hostname) {
					t.Errorf("%s holds /etc/hostname", p)
				}
				return nil
			})
		})
	}
}

// TestCurrentAndSnapshotIDsAreChecked: a current file or a requested
// snapshot naming a path instead of an ID is refused.
func TestCurrentAndSnapshotIDsAreChecked(t *testing.T) {
	f, s, _ := craftedStore(t)
	v := f.create("Evil")
	for _, id := range []string{"../../../etc/passwd", "x", "20260101T000000.000001Z/../x"} {
		if _, err := f.k.Restore(f.ctx, v, RestoreOptions{Snapshot: id, Force: true}); !errors.Is(err, snapstore.ErrNoSnapshot) {
			t.Errorf("restore of snapshot %q: %v, want ErrNoSnapshot", id, err)
		}
	}
	os.WriteFile(s.Path("current"), []byte("../../../../etc/passwd\n"), 0o600)
	if _, err := f.k.Load(f.ctx, v, nil); err == nil || !strings.Contains(err.Error(), "not a snapshot ID") {
		t.Errorf("Load with a crafted current: %v", err)
	}
}

// TestBuildNeverFollowsASymlinkItDidNotMake: a symlink already on the
// disk (put there by someone else during a restore) is not followed,
// neither as a folder on the way nor as the file to write.
func TestBuildNeverFollowsASymlinkItDidNotMake(t *testing.T) {
	src, dst, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, src, "a/x", "data")
	write(t, src, "y", "data")
	entries, err := tree.Entries(src)
	if err != nil {
		t.Fatal(err)
	}
	os.Symlink(outside, filepath.Join(dst, "a"))
	os.Symlink(filepath.Join(outside, "y"), filepath.Join(dst, "y"))
	_, err = snapshot.BuildTree(context.Background(), entries, dst, snapshot.Build{From: src, Src: tree.SamePath})
	if err == nil {
		t.Fatal("the build went through a symlink it did not make")
	}
	outsideUntouched(t, outside)
	// Without the folder, the file through the planted link is refused too.
	os.Remove(filepath.Join(dst, "a"))
	_, err = snapshot.BuildTree(context.Background(), entries, dst, snapshot.Build{From: src, Src: tree.SamePath})
	if err == nil || !strings.Contains(err.Error(), "y") {
		t.Fatalf("build over a planted file link: %v", err)
	}
	outsideUntouched(t, outside)
}

// TestMarkerIsNotWrittenThroughASymlink: a symlink left in the old marker
// file's place is neither followed nor removed: the disk is marked on its
// root folder, and the file it names is untouched.
func TestMarkerIsNotWrittenThroughASymlink(t *testing.T) {
	f := newFixture(t)
	st, _ := f.k.Setup("M", Options{Mode: ramdisk.Keep})
	v := f.create("M")
	outside := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(outside, []byte(st.ID+"\n"), 0o600)
	os.Symlink(outside, filepath.Join(v.MountPoint, tree.MarkerName))
	if _, err := f.k.Load(f.ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != st.ID+"\n" {
		t.Errorf("the file the symlink names now holds %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(v.MountPoint, tree.MarkerName)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced or removed: %v %v", fi, err)
	}
	if !f.k.Holds(v, st) {
		t.Error("the loaded disk is not held")
	}
}

// TestOversizedOrOddStoreFilesAreRefused: a manifest far too large (a
// sparse 2 GiB file) is refused without being read, and a FIFO in place of
// current does not hang the reader.
func TestOversizedOrOddStoreFilesAreRefused(t *testing.T) {
	f, s, m := craftedStore(t)
	p := s.Path("snapshots", m.ID+".snap")
	if err := os.Truncate(p, 2<<30); err != nil {
		t.Fatal(err)
	}
	if _, err := f.k.Snapshots("Evil"); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("listing a store with a 2 GiB manifest: %v", err)
	}
	os.Remove(s.Path("current"))
	if err := syscall.Mkfifo(s.Path("current"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.k.Snapshots("Evil"); err == nil {
		t.Error("a FIFO as current was read")
	}
}

// TestStrayFilesInSnapshotsAreNotSnapshots: a file in snapshots/ not named
// for an ID is neither listed nor read.
func TestStrayFilesInSnapshotsAreNotSnapshots(t *testing.T) {
	f, s, m := craftedStore(t)
	os.WriteFile(s.Path("snapshots", "evil.snap"), []byte("junk"), 0o600)
	snaps, err := f.k.Snapshots("Evil")
	if err != nil || len(snaps) != 1 || snaps[0].ID != m.ID {
		t.Errorf("snapshots with a stray file: %+v %v", snaps, err)
	}
}
