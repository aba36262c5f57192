package keeper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/internal/testdigest"
	"rambar/internal/testtree"
	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// fixture is a Keeper over an in-memory engine whose disks are folders.
type fixture struct {
	t   *testing.T
	k   *Keeper
	eng *ramdisktest.Mem
	ctx context.Context
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	k := NewKeeper(filepath.Join(root, "data"))
	k.IsMounted = func(dir string) bool { _, err := os.Stat(dir); return err == nil }
	eng := ramdisktest.NewMem(filepath.Join(root, "vols"), ramdisk.Memory{Physical: 16 * ramdisk.GiB})
	os.MkdirAll(eng.Root, 0o700)
	return &fixture{t: t, k: k, eng: eng, ctx: context.Background()}
}

func (f *fixture) create(name string) ramdisk.Volume {
	f.t.Helper()
	v, err := f.eng.Create(f.ctx, ramdisk.Plan{Name: name, Size: 64 * ramdisk.MiB, FS: ramdisk.TmpFS})
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

// kept sets up disk name kept (Keep), creates it and loads it.
func (f *fixture) kept(name string) (State, ramdisk.Volume) {
	f.t.Helper()
	st, err := f.k.Setup(name, Options{Mode: ramdisk.Keep})
	if err != nil {
		f.t.Fatal(err)
	}
	v := f.create(name)
	if _, err := f.k.Load(f.ctx, v, nil); err != nil {
		f.t.Fatal(err)
	}
	return st, v
}

func (f *fixture) eject(v ramdisk.Volume) {
	f.t.Helper()
	if err := f.eng.Eject(f.ctx, v, false); err != nil {
		f.t.Fatal(err)
	}
}

func write(t *testing.T, root, rel, data string) {
	t.Helper()
	testtree.Write(t, root, rel, data)
}

// richTree writes files, folders, a symlink, odd permissions, old times and
// user xattrs: everything a round trip must keep.
func richTree(t *testing.T, root string) {
	t.Helper()
	write(t, root, "README", "hello\n")
	write(t, root, "src/main.go", "package main\n")
	write(t, root, "src/deep/a/b/c.txt", strings.Repeat("x", 100000))
	write(t, root, "empty", "")
	write(t, root, "bin/tool", "#!/bin/sh\n")
	os.Chmod(filepath.Join(root, "bin/tool"), 0o755)
	os.Chmod(filepath.Join(root, "README"), 0o600)
	os.MkdirAll(filepath.Join(root, "emptydir"), 0o750)
	os.MkdirAll(filepath.Join(root, "sticky"), 0o755)
	os.Chmod(filepath.Join(root, "sticky"), 0o755|os.ModeSticky)
	if err := os.Symlink("src/main.go", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nowhere/at/all", filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Setxattr(filepath.Join(root, "src/main.go"), "user.rambar.test", []byte("tag value"), 0); err != nil {
		t.Fatalf("xattrs unsupported where the test runs: %v", err)
	}
	if err := unix.Setxattr(filepath.Join(root, "src"), "user.dir", []byte{0, 1, 2}, 0); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 2, 3, 4, 5, 6, 789000000, time.UTC)
	for _, p := range []string{"README", "src/deep/a/b/c.txt", "src/deep", "emptydir"} {
		if err := os.Chtimes(filepath.Join(root, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	ts := []unix.Timespec{unix.NsecToTimespec(old.UnixNano()), unix.NsecToTimespec(old.UnixNano())}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, filepath.Join(root, "link"), ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		t.Fatal(err)
	}
}

func digest(t *testing.T, root string) tree.Digest {
	t.Helper()
	return testdigest.Of(t, root)
}

func sameTree(t *testing.T, want, got tree.Digest) {
	t.Helper()
	testdigest.Same(t, want, got)
}

func TestRoundTripKeepsEverything(t *testing.T) {
	f := newFixture(t)
	if _, err := f.k.Setup("Work", Options{Mode: ramdisk.Keep}); err != nil {
		t.Fatal(err)
	}
	v := f.create("Work")
	if _, err := f.k.Load(f.ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	richTree(t, v.MountPoint)
	want := digest(t, v.MountPoint)
	if want["src/main.go"] == "" || !strings.Contains(want["src/main.go"], "user.rambar.test=") {
		t.Fatalf("fixture lacks the xattr: %q", want["src/main.go"])
	}
	res, err := f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 5 || res.CopiedFiles != 5 || res.Unchanged {
		t.Errorf("first save = %+v, want 5 files copied", res)
	}
	f.eject(v)
	v = f.create("Work")
	if _, err := f.k.Load(f.ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, want, digest(t, v.MountPoint))
	if st, err := f.k.State("Work"); err != nil || !f.k.Holds(v, st) {
		t.Errorf("the restored disk is not held by its store (%v)", err)
	}
	if _, err := os.Lstat(filepath.Join(v.MountPoint, tree.MarkerName)); err == nil {
		t.Error("a marker file in the restored disk's tree")
	}
	// Restored files are copies: no inode shared with the store.
	var st unix.Stat_t
	if err := unix.Stat(filepath.Join(v.MountPoint, "src/main.go"), &st); err != nil || st.Nlink != 1 {
		t.Errorf("restored file has %d links (err %v), want 1", st.Nlink, err)
	}
}

func TestIncrementalSaveCopiesOnlyChanges(t *testing.T) {
	f := newFixture(t)
	f.k.Setup("Inc", Options{Mode: ramdisk.Keep, Snapshots: 10})
	v := f.create("Inc")
	f.k.Load(f.ctx, v, nil)
	for i := 0; i < 20; i++ {
		write(t, v.MountPoint, fmt.Sprintf("d%d/f%d", i%3, i), strings.Repeat("a", i*100))
	}
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name       string
		change     func(root string)
		copied     int
		unchanged  bool
		removed    int
		wantsDirty bool
	}{
		{"nothing", func(string) {}, 0, true, 0, false},
		{"one file rewritten", func(r string) { write(t, r, "d0/f3", "new contents") }, 1, false, 0, true},
		{"one file added", func(r string) { write(t, r, "d1/new", "n") }, 1, false, 0, true},
		{"two deleted", func(r string) { os.Remove(filepath.Join(r, "d2/f5")); os.Remove(filepath.Join(r, "d2/f8")) }, 0, false, 2, true},
		{"chmod", func(r string) { os.Chmod(filepath.Join(r, "d0/f0"), 0o600) }, 1, false, 0, true},
		// Only its ctime moved: when its bytes, read held still, are the
		// stored ones, its new entry (with the xattr) names the stored
		// object; a read too soon after the change copies it (-1: 0 or 1).
		{"xattr", func(r string) { unix.Setxattr(filepath.Join(r, "d1/f1"), "user.k", []byte("v"), 0) }, -1, false, 0, true},
		{"folder removed", func(r string) { os.RemoveAll(filepath.Join(r, "d2")) }, 0, false, 5, true},
		{"nothing again", func(string) {}, 0, true, 0, false},
	}
	for _, s := range steps {
		s.change(v.MountPoint)
		dirty, err := f.k.Dirty(v)
		if err != nil || dirty != s.wantsDirty {
			t.Errorf("%s: Dirty = %v, %v; want %v", s.name, dirty, err, s.wantsDirty)
		}
		want := digest(t, v.MountPoint)
		res, err := f.k.Save(f.ctx, v, SaveOptions{})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if s.copied >= 0 && res.CopiedFiles != s.copied || s.copied < 0 && res.CopiedFiles > -s.copied || res.Unchanged != s.unchanged || res.Removed != s.removed {
			t.Errorf("%s: copied %d unchanged %v removed %d; want %d %v %d", s.name, res.CopiedFiles, res.Unchanged, res.Removed, s.copied, s.unchanged, s.removed)
		}
		// Every step's snapshot restores to exactly the tree saved.
		tmp := t.TempDir()
		st, _ := f.k.State("Inc")
		if _, err := f.k.store(st).Restore(f.ctx, res.Snapshot, tmp, "", nil); err != nil {
			t.Fatal(err)
		}
		sameTree(t, want, digest(t, tmp))
	}
}

func TestSnapshotsArePrunedAndRestorable(t *testing.T) {
	f := newFixture(t)
	f.k.Setup("Snap", Options{Mode: ramdisk.Keep, Snapshots: 3})
	v := f.create("Snap")
	f.k.Load(f.ctx, v, nil)
	var ids []string
	var trees []tree.Digest
	for i := 0; i < 5; i++ {
		write(t, v.MountPoint, "version", fmt.Sprint(i))
		write(t, v.MountPoint, fmt.Sprintf("added%d", i), "x")
		trees = append(trees, digest(t, v.MountPoint))
		res, err := f.k.Save(f.ctx, v, SaveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Snapshot)
	}
	snaps, err := f.k.Snapshots("Snap")
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 3 || snaps[0].ID != ids[2] || !snaps[2].Current || snaps[2].Files != 6 {
		t.Fatalf("snapshots = %+v, want the last 3 of %v", snaps, ids)
	}
	// An old snapshot restores whole, even though its unchanged files'
	// objects were written by pruned saves.
	if _, err := f.k.Restore(f.ctx, v, RestoreOptions{Snapshot: ids[2]}); !errors.Is(err, ErrRefused) {
		t.Fatalf("restore over a full disk without force: %v, want ErrRefused", err)
	}
	if _, err := f.k.Restore(f.ctx, v, RestoreOptions{Snapshot: ids[2], Force: true}); err != nil {
		t.Fatal(err)
	}
	sameTree(t, trees[2], digest(t, v.MountPoint))
	if _, err := f.k.Restore(f.ctx, v, RestoreOptions{Snapshot: ids[0], Force: true}); !errors.Is(err, snapstore.ErrNoSnapshot) {
		t.Errorf("restore of a pruned snapshot: %v, want ErrNoSnapshot", err)
	}
	// Saving after restoring an old snapshot makes it current again.
	res, err := f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil || res.Unchanged {
		t.Fatalf("save after restore: %+v %v", res, err)
	}
	if res.CopiedFiles != 0 {
		t.Errorf("save right after a restore copied %d files, want 0", res.CopiedFiles)
	}
}

func TestGuardsRefuseToLoseSavedContents(t *testing.T) {
	f := newFixture(t)
	_, v := f.kept("G")
	write(t, v.MountPoint, "precious", "data")
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	saved, _ := f.k.Snapshots("G")
	cases := []struct {
		name  string
		setup func() ramdisk.Volume
		what  string
	}{
		{"empty disk", func() ramdisk.Volume {
			os.Remove(filepath.Join(v.MountPoint, "precious"))
			return v
		}, "is empty"},
		{"different disk", func() ramdisk.Volume {
			// Another disk made under the name, without loading it.
			f.eject(v)
			v = f.create("G")
			write(t, v.MountPoint, "other", "x")
			return v
		}, "is not a disk this RAMBar knows"},
		{"an old marker file naming another store", func() ramdisk.Volume {
			os.WriteFile(filepath.Join(v.MountPoint, tree.MarkerName), []byte("someoneelse\n"), 0o644)
			return v
		}, "is not a disk this RAMBar knows"},
		{"unmounted", func() ramdisk.Volume {
			return ramdisk.Volume{Name: "G", MountPoint: filepath.Join(t.TempDir(), "gone")}
		}, "not mounted"},
	}
	for _, c := range cases {
		vol := c.setup()
		_, err := f.k.Save(f.ctx, vol, SaveOptions{})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.what) {
			t.Errorf("%s: err = %v, want ErrRefused saying %q", c.name, err, c.what)
		}
		now, _ := f.k.Snapshots("G")
		if len(now) != len(saved) || now[len(now)-1].ID != saved[len(saved)-1].ID {
			t.Errorf("%s: snapshots changed: %v", c.name, now)
		}
	}
	// --force overrides.
	res, err := f.k.Save(f.ctx, v, SaveOptions{Force: true})
	if err != nil || res.Unchanged {
		t.Errorf("forced save: %+v %v", res, err)
	}
}

func TestAutosaveSavesChangedDisksOnly(t *testing.T) {
	f := newFixture(t)
	_, kept := f.kept("Auto")
	plain := f.create("Plain")
	write(t, plain.MountPoint, "p", "not kept")
	write(t, kept.MountPoint, "a", "1")
	ctx, cancel := context.WithCancel(f.ctx)
	saved := make(chan string, 10)
	done := make(chan error, 1)
	go func() {
		done <- f.k.Autosave(ctx, 30*time.Millisecond, f.eng.List, func(name string, r Result, err error) {
			if err != nil {
				t.Errorf("autosave %s: %v", name, err)
			}
			saved <- name
		})
	}()
	wait := func() string {
		select {
		case n := <-saved:
			return n
		case <-time.After(5 * time.Second):
			t.Fatal("no autosave")
		}
		return ""
	}
	if n := wait(); n != "Auto" {
		t.Errorf("autosaved %q", n)
	}
	// Nothing changed: no save for a while; then a change is saved.
	select {
	case n := <-saved:
		t.Errorf("autosaved %q with nothing changed", n)
	case <-time.After(150 * time.Millisecond):
	}
	// Replaced whole (written beside the disk, renamed in): a tick landing
	// mid-write would save the truncated file, and the disk would rightly
	// still be dirty after that save.
	tmp := filepath.Join(t.TempDir(), "a.new")
	write(t, filepath.Dir(tmp), filepath.Base(tmp), "2")
	if err := os.Rename(tmp, filepath.Join(kept.MountPoint, "a")); err != nil {
		t.Fatal(err)
	}
	wait()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Autosave returned %v", err)
	}
	if dirty, _ := f.k.Dirty(kept); dirty {
		t.Error("still dirty after autosave")
	}
	if _, err := f.k.State("Plain"); !errors.Is(err, ErrNotKept) {
		t.Errorf("plain disk state: %v", err)
	}
}

func TestSnapshotsShareUnchangedFiles(t *testing.T) {
	f := newFixture(t)
	st, _ := f.k.Setup("Share", Options{Mode: ramdisk.Keep, Snapshots: 5})
	v := f.create("Share")
	f.k.Load(f.ctx, v, nil)
	for i := 0; i < 50; i++ {
		write(t, v.MountPoint, fmt.Sprintf("f%d", i), strings.Repeat("s", 1000+i))
	}
	for round := 0; round < 4; round++ {
		write(t, v.MountPoint, "f0", fmt.Sprint(round))
		if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// 4 snapshots of 50 files: one pack of the 50 small files for the
	// first (it packs them: before, 50 objects), 1 object for each next.
	n := 0
	filepath.WalkDir(filepath.Join(st.Backing, "objects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	if n != 4 {
		t.Errorf("%d objects stored for 4 snapshots differing in one file, want 4", n)
	}
}

// TestCopyFileHook restores through Keeper.CopyFile (macOS sets it to
// `ditto --hfsCompression`): every file goes through the hook, and the tree
// still comes back whole with its metadata.
func TestCopyFileHook(t *testing.T) {
	f := newFixture(t)
	if _, err := f.k.Setup("Hook", Options{Mode: ramdisk.Keep}); err != nil {
		t.Fatal(err)
	}
	v := f.create("Hook")
	if _, err := f.k.Load(f.ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	richTree(t, v.MountPoint)
	want := digest(t, v.MountPoint)
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	f.eject(v)
	var mu sync.Mutex
	var copied []string
	f.k.CopyFile = func(ctx context.Context, src, dst string) error {
		mu.Lock()
		copied = append(copied, filepath.Base(dst))
		mu.Unlock()
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o600)
	}
	v = f.create("Hook")
	if _, err := f.k.Load(f.ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, want, digest(t, v.MountPoint))
	if len(copied) != 5 {
		t.Errorf("CopyFile wrote %d files (%v), want all 5", len(copied), copied)
	}
	f.k.CopyFile = func(ctx context.Context, src, dst string) error { return errors.New("ditto: no space") }
	f.eject(v)
	v = f.create("Hook")
	if _, err := f.k.Load(f.ctx, v, nil); err == nil || !strings.Contains(err.Error(), "ditto: no space") {
		t.Errorf("a failing CopyFile: Load gave %v", err)
	}
}

// TestDirtyOfANeverSavedDisk: a kept disk never saved has nothing to lose
// while it holds no contents (tree.HasContents: the marker, RAMBar's own
// names and an ext4 disk's own empty lost+found are not contents), and is
// dirty once it holds anything of the user's, a lost+found the user made
// on tmpfs too (the old twin of HasContents passed over any name
// lost+found, and called such a disk clean).
func TestDirtyOfANeverSavedDisk(t *testing.T) {
	tests := []struct {
		name  string
		make  func(root string)
		dirty bool
	}{
		{"empty", func(string) {}, false},
		{"a lost+found the user made", func(r string) { os.Mkdir(filepath.Join(r, "lost+found"), 0o700) }, true},
		{"a file", func(r string) { write(t, r, "notes.txt", "x") }, true},
		{"an empty folder of the user's", func(r string) { os.Mkdir(filepath.Join(r, "build"), 0o755) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			_, v := f.kept("New")
			tt.make(v.MountPoint)
			if dirty, err := f.k.Dirty(v); err != nil || dirty != tt.dirty {
				t.Errorf("Dirty = %v, %v; want %v", dirty, err, tt.dirty)
			}
		})
	}
}
