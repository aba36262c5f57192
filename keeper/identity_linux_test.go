//go:build linux

package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/internal/diskid"
	"rambar/ramdisk"
)

// sh runs a command (never through a shell string built from input) and
// fails the test when it fails.
func sh(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", argv, err, out)
	}
	return string(out)
}

// keptOnTmpfs is a kept disk on a real tmpfs, loaded, with a data folder.
func keptOnTmpfs(t *testing.T, name string) (*Keeper, State, ramdisk.Volume) {
	t.Helper()
	base := t.TempDir()
	k := NewKeeper(filepath.Join(base, "data"))
	st, err := k.Setup(name, Options{Mode: ramdisk.Keep})
	if err != nil {
		t.Fatal(err)
	}
	v := ramdisk.Volume{Name: name, MountPoint: tmpfsAt(t, filepath.Join(base, "mnt", name), "32m")}
	if _, err := k.Load(context.Background(), v, nil); err != nil {
		t.Fatal(err)
	}
	return k, st, v
}

func snapCount(t *testing.T, k *Keeper, name string) int {
	t.Helper()
	snaps, err := k.Snapshots(name)
	if err != nil {
		t.Fatal(err)
	}
	return len(snaps)
}

// TestKeptDiskSurvivesTheUsersTidyUp: the user's own tools at a kept
// disk's root (a real git repository: git clean -fdx; rm -rf of every
// name) leave it kept: nothing of RAMBar's is in its tree, every save
// after them is taken, and the saved state is what the disk holds. A mark
// removed by hand (setfattr -x) is put back at the next save, and the
// save says so; the data folder's record knew the disk all along.
func TestKeptDiskSurvivesTheUsersTidyUp(t *testing.T) {
	ctx := context.Background()
	k, st, v := keptOnTmpfs(t, "Work")
	if ents, _ := os.ReadDir(v.MountPoint); len(ents) != 0 {
		t.Fatalf("a fresh kept disk holds %v: RAMBar's marks must not be in the tree", ents)
	}
	sh(t, v.MountPoint, "git", "init", "-q")
	write(t, v.MountPoint, "src/main.go", "package main\n")
	sh(t, v.MountPoint, "git", "add", "-A")
	sh(t, v.MountPoint, "git", "commit", "-qm", "first")
	write(t, v.MountPoint, "build/out.o", "object")
	if st := sh(t, v.MountPoint, "git", "status", "--porcelain", "--ignored"); st != "?? build/\n" {
		t.Errorf("git status on the disk: %q, want only the user's build/", st)
	}
	steps := []struct {
		what string
		do   func()
	}{
		{"git clean -fdx", func() { sh(t, v.MountPoint, "git", "clean", "-fdxq") }},
		{"an edit", func() { write(t, v.MountPoint, "src/main.go", "package main // edited\n") }},
		{"rm -rf of every name at the root", func() {
			ents, _ := os.ReadDir(v.MountPoint)
			for _, e := range ents {
				os.RemoveAll(filepath.Join(v.MountPoint, e.Name()))
			}
			write(t, v.MountPoint, "fresh.txt", "after rm -rf")
		}},
		{"the mark removed by hand", func() {
			for _, a := range diskid.MarkAttrs {
				unix.Removexattr(v.MountPoint, a)
			}
			write(t, v.MountPoint, "fresh.txt", "after the mark went")
		}},
	}
	for i, s := range steps {
		s.do()
		if !k.Holds(v, st) {
			t.Fatalf("after %s: the disk is not held", s.what)
		}
		if d, err := k.Dirty(v); err != nil || !d {
			t.Errorf("after %s: dirty %v %v, want unsaved changes", s.what, d, err)
		}
		before := snapCount(t, k, "Work")
		r, err := k.Save(ctx, v, SaveOptions{})
		if err != nil {
			t.Fatalf("save after %s: %v", s.what, err)
		}
		if r.Unchanged || snapCount(t, k, "Work") != min(before+1, DefaultSnapshots) {
			t.Errorf("save after %s: %+v, no new snapshot", s.what, r)
		}
		if r.Remarked != (i == len(steps)-1) {
			t.Errorf("save after %s: remarked %v", s.what, r.Remarked)
		}
		if m, err := diskid.ReadMark(v.MountPoint); err != nil || !m.For(v.MountPoint) || m.ID != st.ID {
			t.Errorf("after %s and a save: mark %+v %v", s.what, m, err)
		}
		sameTree(t, digest(t, v.MountPoint), savedTree(t, k, "Work"))
	}
}

// savedTree restores a store's current snapshot into a new folder and
// digests it.
func savedTree(t *testing.T, k *Keeper, name string) tree.Digest {
	t.Helper()
	st, err := k.State(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := k.store(st).Restore(context.Background(), "", dir, st.ID, nil); err != nil {
		t.Fatal(err)
	}
	return digest(t, dir)
}

// TestCopiedMarksAreNotTrusted: a disk given another disk's mark (cp -a of
// its root, or the attribute copied by hand), or an older RAMBar's marker
// file copied from it, is not that disk: not held, not saved over its
// store, and told as such; the disk itself stays held.
func TestCopiedMarksAreNotTrusted(t *testing.T) {
	ctx := context.Background()
	k, st, a := keptOnTmpfs(t, "A")
	write(t, a.MountPoint, "precious", "A's work")
	if _, err := k.Save(ctx, a, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	// Another disk takes A's place under its name: A is ejected and a plain
	// disk mounted where it was, carrying copies of A's marks.
	m, err := diskid.ReadMark(a.MountPoint)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Unmount(a.MountPoint, unix.MNT_DETACH); err != nil {
		t.Fatal(err)
	}
	b := ramdisk.Volume{Name: "A", MountPoint: tmpfsAt(t, a.MountPoint, "32m")}
	write(t, b.MountPoint, "other", "not A's")
	raw, _ := json.Marshal(m)
	if err := unix.Setxattr(b.MountPoint, "user.rambar", raw, 0); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(b.MountPoint, tree.MarkerName), []byte(st.ID+"\n"), 0o644)
	if k.Holds(b, st) {
		t.Fatal("a disk with copied marks is held")
	}
	if _, err := k.Save(ctx, b, SaveOptions{}); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "copied from another disk") {
		t.Errorf("save of the other disk: %v, want a refusal saying its mark was copied", err)
	}
	if got := savedTree(t, k, "A"); got["precious"] == "" || got["other"] != "" {
		t.Errorf("the store of A changed: %v", got)
	}
}

// TestAnotherDataFoldersDisk: a disk kept by one data folder is not held by
// another's keeper of the same name (root's under sudo, or another
// RAMBAR_HOME), which names the owner; its own keeper still holds it.
func TestAnotherDataFoldersDisk(t *testing.T) {
	k, st, v := keptOnTmpfs(t, "Shared")
	other := NewKeeper(filepath.Join(t.TempDir(), "root-data"))
	ost, err := other.Setup("Shared", Options{Mode: ramdisk.Keep})
	if err != nil {
		t.Fatal(err)
	}
	if other.Holds(v, ost) {
		t.Fatal("another data folder holds the disk")
	}
	if _, ok := other.Known(v); ok {
		t.Error("another data folder knows the disk")
	}
	if w := other.Whose(v).Text; !strings.Contains(w, "another RAMBar's disk") || !strings.Contains(w, k.Data) || !strings.Contains(w, "uid 0") {
		t.Errorf("whose: %q, want the owner's data folder and uid", w)
	}
	// Its save is refused, even into a store that holds nothing yet, and
	// forced it saves without taking the disk: the mark stays the owner's.
	write(t, v.MountPoint, "x", "y")
	if _, err := other.Save(context.Background(), v, SaveOptions{}); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), k.Data) {
		t.Errorf("another data folder's save: %v, want a refusal naming the owner", err)
	}
	if _, err := other.Save(context.Background(), v, SaveOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if m, err := diskid.ReadMark(v.MountPoint); err != nil || m.Data != k.Data {
		t.Errorf("a forced save by another data folder took the mark: %+v %v", m, err)
	}
	if other.Holds(v, ost) {
		t.Error("a forced save made another data folder hold the disk")
	}
	if !k.Holds(v, st) {
		t.Error("the owner no longer holds its disk")
	}
}

// TestOlderRAMBarsDiskIsTakenOn: a disk made by an older RAMBar, known only
// by its .rambar-id file, is held (and recorded, marked, its file removed),
// so git clean afterwards changes nothing; a store made then loads.
func TestOlderRAMBarsDiskIsTakenOn(t *testing.T) {
	ctx := context.Background()
	k, st, v := keptOnTmpfs(t, "Old")
	write(t, v.MountPoint, "work.txt", "from before")
	if _, err := k.Save(ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	// As an older RAMBar left it: no record, no mark, the marker file.
	k.registry().Drop("Old", "")
	for _, a := range diskid.MarkAttrs {
		unix.Removexattr(v.MountPoint, a)
	}
	os.WriteFile(filepath.Join(v.MountPoint, tree.MarkerName), []byte(st.ID+"\n"), 0o644)
	if !k.Holds(v, st) {
		t.Fatal("an older RAMBar's kept disk is not held")
	}
	absent(t, filepath.Join(v.MountPoint, tree.MarkerName))
	if _, ok := k.registry().Get("Old"); !ok {
		t.Error("not recorded when taken on")
	}
	os.RemoveAll(filepath.Join(v.MountPoint, "work.txt"))
	write(t, v.MountPoint, "work.txt", "edited")
	if !k.Holds(v, st) {
		t.Fatal("not held after it was taken on and tidied")
	}
	if r, err := k.Save(ctx, v, SaveOptions{}); err != nil || r.Unchanged {
		t.Fatalf("save: %+v %v", r, err)
	}
	// The store loads onto a new disk.
	unix.Unmount(v.MountPoint, unix.MNT_DETACH)
	nv := ramdisk.Volume{Name: "Old", MountPoint: tmpfsAt(t, v.MountPoint, "32m")}
	if _, err := k.Load(ctx, nv, nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(nv.MountPoint, "work.txt")); got != "edited" {
		t.Errorf("loaded %q", got)
	}
}

// TestMirrorOfAGitCloneStaysClean: a Mirror disk of a git clone shows
// nothing in git status after the load and after a write-back, and the
// folder never gets a marker (a file or an attribute of its top folder).
func TestMirrorOfAGitCloneStaysClean(t *testing.T) {
	f := newMirrorFill(t, func(folder string) {
		sh(t, folder, "git", "init", "-q")
		write(t, folder, "README.md", "# project\n")
		write(t, folder, "src/a.go", "package a\n")
		sh(t, folder, "git", "add", "-A")
		sh(t, folder, "git", "commit", "-qm", "first")
	})
	clean := func(when, dir string) {
		t.Helper()
		if st := sh(t, dir, "git", "status", "--porcelain", "--ignored"); st != "" {
			t.Errorf("%s: git status in %s: %q, want nothing", when, dir, st)
		}
	}
	clean("after the load", f.v.MountPoint)
	clean("after the load", f.folder)
	write(t, f.v.MountPoint, "src/a.go", "package a // changed on the disk\n")
	sh(t, f.v.MountPoint, "git", "commit", "-qam", "on the disk")
	f.save()
	clean("after the write-back", f.v.MountPoint)
	clean("after the write-back", f.folder)
	if got := sh(t, f.folder, "git", "log", "--format=%s"); got != "on the disk\nfirst\n" {
		t.Errorf("the folder's history: %q", got)
	}
	absent(t, f.inFolder(tree.MarkerName))
	if _, err := diskid.ReadMark(f.folder); !errors.Is(err, diskid.ErrNoMark) {
		t.Errorf("the folder carries a mark: %v", err)
	}
	// A clean of the disk's root keeps it mirrored: the next save writes back.
	sh(t, f.v.MountPoint, "git", "clean", "-fdxq")
	write(t, f.v.MountPoint, "notes.txt", "new")
	f.save()
	if got := read(t, f.inFolder("notes.txt")); got != "new" {
		t.Errorf("written back after git clean: %q", got)
	}
}

// TestADiskMadeAgainIsNotTheOld: a kept disk unmounted outside RAMBar
// (umount, a crash) and another tmpfs mounted at once at its place (the
// same device number, inode and, within the kernel's coarse clock, birth
// time) is not the kept disk: not held, not known, its save refused, and
// only a Load makes it the store's. Fifty rounds.
func TestADiskMadeAgainIsNotTheOld(t *testing.T) {
	ctx := context.Background()
	k, st, v := keptOnTmpfs(t, "Again")
	write(t, v.MountPoint, "work", "round -1")
	if _, err := k.Save(ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 50; round++ {
		if err := unix.Unmount(v.MountPoint, unix.MNT_DETACH); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mount("rambar-test", v.MountPoint, "tmpfs", 0, "size=32m,mode=0755"); err != nil {
			t.Fatal(err)
		}
		write(t, v.MountPoint, "intruder", "not the kept disk")
		if k.Holds(v, st) {
			t.Fatalf("round %d: the tmpfs made again is held", round)
		}
		if _, ok := k.Known(v); ok {
			t.Fatalf("round %d: the tmpfs made again is known", round)
		}
		if _, err := k.Save(ctx, v, SaveOptions{}); !errors.Is(err, ErrRefused) {
			t.Fatalf("round %d: its save: %v, want refused", round, err)
		}
		os.Remove(filepath.Join(v.MountPoint, "intruder"))
		if _, err := k.Load(ctx, v, nil); err != nil {
			t.Fatalf("round %d: load: %v", round, err)
		}
		if got := read(t, filepath.Join(v.MountPoint, "work")); got != "round "+strconv.Itoa(round-1) {
			t.Fatalf("round %d: loaded %q", round, got)
		}
		write(t, v.MountPoint, "work", "round "+strconv.Itoa(round))
		if _, err := k.Save(ctx, v, SaveOptions{}); err != nil {
			t.Fatalf("round %d: save: %v", round, err)
		}
	}
}

// BenchmarkHolds is what the menu's refresh and every save pay to tell a
// kept disk: the record read, the volume's identity (statx, statfs, file
// handle). go test -run '^$' -bench Holds ./keeper
func BenchmarkHolds(b *testing.B) {
	base := b.TempDir()
	k := NewKeeper(filepath.Join(base, "data"))
	st, err := k.Setup("Bench", Options{Mode: ramdisk.Keep})
	if err != nil {
		b.Fatal(err)
	}
	mp := filepath.Join(base, "mnt")
	os.MkdirAll(mp, 0o755)
	if err := unix.Mount("rambar-test", mp, "tmpfs", 0, "size=4m"); err != nil {
		b.Fatal(err)
	}
	defer unix.Unmount(mp, unix.MNT_DETACH)
	v := ramdisk.Volume{Name: "Bench", MountPoint: mp}
	if _, err := k.Load(context.Background(), v, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if !k.Holds(v, st) {
			b.Fatal("not held")
		}
	}
}

// TestLostRecordIsPutBackByTheMark: the data folder's records deleted, a
// kept disk and a plain one this data folder made are known again from
// their marks (and recorded again); another data folder's mark is not.
func TestLostRecordIsPutBackByTheMark(t *testing.T) {
	k, st, v := keptOnTmpfs(t, "Kept")
	plain := ramdisk.Volume{Name: "Plain", MountPoint: tmpfsAt(t, "", "4m")}
	if err := k.Note(plain, diskid.KindPlain); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(k.registry().Dir)
	if _, ok := k.Known(plain); !ok {
		t.Error("the plain disk is not known from its mark")
	}
	if !k.Holds(v, st) {
		t.Error("the kept disk is not held from its mark")
	}
	for _, name := range []string{"Plain", v.Name} {
		if _, ok := k.registry().Get(name); !ok {
			t.Errorf("the record of %s is not put back", name)
		}
	}
	other := NewKeeper(filepath.Join(t.TempDir(), "other"))
	if _, ok := other.Known(plain); ok {
		t.Error("another data folder knows the plain disk from its mark")
	}
}
