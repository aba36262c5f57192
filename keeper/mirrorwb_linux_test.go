//go:build linux

package keeper

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/foldersync"
	"rambar/syncrec"
)

// The temporary names an interrupted write-back listed are removed by the
// next one (a file, and a folder made under such a name with what it
// holds); a name of that form it did not list is the user's, and stays.
func TestMirrorRemovesTempsOfAnInterruptedWriteBack(t *testing.T) {
	f := newMirror(t, map[string]string{"a": "a", "sub/b": "b"})
	listed := []foldersync.TempAt{{Dir: ".", Name: foldersync.TempPrefix + "0123456789abcdef"}, {Dir: "sub", Name: foldersync.TempPrefix + "fedcba9876543210"},
		{Dir: "gone", Name: foldersync.TempPrefix + "00000000000000aa"}}
	write(t, f.folder, listed[0].Name, "half written")
	write(t, f.folder, "sub/"+listed[1].Name+"/new/file", "a folder being made")
	write(t, f.folder, foldersync.TempPrefix+"1111111111111111", "the user's")
	st, _ := f.k.State("Site")
	if err := foldersync.WriteJournal(st.Backing, listed); err != nil {
		t.Fatal(err)
	}
	if dirty, _ := f.k.Dirty(f.v); !dirty {
		t.Error("a disk whose write-back was cut short is not dirty")
	}
	f.save()
	absent(t, f.inFolder(listed[0].Name))
	absent(t, f.inFolder("sub/"+listed[1].Name))
	if read(t, f.inFolder(foldersync.TempPrefix+"1111111111111111")) != "the user's" {
		t.Error("a name the list did not hold was touched")
	}
	if foldersync.HasJournal(st.Backing) {
		t.Error("the list is left")
	}
}

// What appears in the folder while a write-back runs, where the disk's
// version was to go, is never overwritten: a file made under the name of
// a file the disk added, a file under the name of a folder the disk made,
// an edit of a file the disk changed. The disk's versions become conflict
// copies (the disk's new folder with what it holds), and the next saves
// lose nothing.
func TestMirrorWhatAppearsDuringAWriteBackIsKept(t *testing.T) {
	f := newMirror(t, map[string]string{"a.txt": "a1", "keep.txt": "k"})
	write(t, f.v.MountPoint, "a.txt", "a2 from the disk")
	write(t, f.v.MountPoint, "added.txt", "added on the disk")
	write(t, f.v.MountPoint, "newdir/inside.txt", "inside, from the disk")
	f.k.placing = func(*foldersync.PathWrite) {
		write(t, f.folder, "a.txt", "edited meanwhile")
		write(t, f.folder, "added.txt", "made meanwhile")
		write(t, f.folder, "newdir", "a file made meanwhile")
	}
	r := f.save()
	f.k.placing = nil
	for p, want := range map[string]string{"a.txt": "edited meanwhile", "added.txt": "made meanwhile", "newdir": "a file made meanwhile"} {
		if got := read(t, f.inFolder(p)); got != want {
			t.Errorf("%s = %q, want %q (what appeared meanwhile)", p, got, want)
		}
	}
	copies := map[string]string{}
	for _, c := range r.Folder.Conflicts {
		copies[c.Path] = c.Copy
	}
	if read(t, f.inFolder(copies["a.txt"])) != "a2 from the disk" || read(t, f.inFolder(copies["added.txt"])) != "added on the disk" ||
		read(t, filepath.Join(f.inFolder(copies["newdir"]), "inside.txt")) != "inside, from the disk" {
		t.Fatalf("the disk's versions are not the copies: %+v", r.Folder.Conflicts)
	}
	f.noLeftovers()
	write(t, f.v.MountPoint, "keep.txt", "k2")
	if _, err := f.k.Save(f.ctx, f.v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if read(t, f.inFolder("keep.txt")) != "k2" || read(t, f.inFolder("a.txt")) != "edited meanwhile" {
		t.Error("the next save lost something")
	}
	f.noLeftovers()
}

// A write-back looks only at what the disk changed: one file changed in a
// folder of 2,000 is one path (and its folder) read and written, with the
// record's base untouched.
func TestMirrorWriteBackLooksOnlyAtChanges(t *testing.T) {
	f := newMirrorFill(t, func(folder string) { crashTree(t, folder, 9, 2000) })
	st := mustState(t, f.k, "Site")
	rec, err := syncrec.Open(st.Backing)
	if err != nil {
		t.Fatal(err)
	}
	base := rec.Base
	rec.Close()
	write(t, f.v.MountPoint, "dir3/sub3/file3", "changed")
	var looked []string
	f.k.placing = func(w *foldersync.PathWrite) {
		for _, it := range w.Items {
			looked = append(looked, it.Path)
		}
	}
	f.save()
	if len(looked) != 1 || looked[0] != "dir3/sub3/file3" {
		t.Errorf("the write-back looked at %v", looked)
	}
	if rec, err = syncrec.Open(st.Backing); err != nil || rec.Base != base || len(rec.Delta) != 1 {
		t.Errorf("the record: base %s (was %s), %d changed paths, %v", rec.Base, base, len(rec.Delta), err)
	}
	rec.Close()
}

// A damaged record (a block of its base, or its sync file) is refused with
// what to do, the folder untouched; save --force writes the disk back as if
// nothing were recorded: both versions of every path that differs.
func TestMirrorDamagedRecord(t *testing.T) {
	f := newMirror(t, map[string]string{"a.txt": "a", "b.txt": "b"})
	st := mustState(t, f.k, "Site")
	rec, err := syncrec.Open(st.Backing)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(st.Backing, "mirror", rec.Base)
	rec.Close()
	b, _ := os.ReadFile(base)
	b[len("RAMBAR-MIRROR-BASE-1\n")+2] ^= 0xff // the first block, after the magic line
	os.WriteFile(base, b, 0o600)
	write(t, f.v.MountPoint, "a.txt", "a2")
	write(t, f.folder, "b.txt", "b outside")
	before := digest(t, f.folder)
	_, err = f.k.Save(f.ctx, f.v, SaveOptions{})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "--force") || !strings.Contains(err.Error(), base) {
		t.Fatalf("save with a damaged record: %v", err)
	}
	sameTree(t, before, digest(t, f.folder))
	r, err := f.k.Save(f.ctx, f.v, SaveOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if read(t, f.inFolder("a.txt")) != "a2" || read(t, f.inFolder("b.txt")) != "b" || len(r.Folder.Conflicts) != 2 {
		t.Errorf("forced: a.txt %q, b.txt %q, %+v", read(t, f.inFolder("a.txt")), read(t, f.inFolder("b.txt")), r.Folder)
	}
	for _, c := range r.Folder.Conflicts {
		if c.Path == "b.txt" && read(t, f.inFolder(c.Copy)) != "b outside" {
			t.Errorf("the folder's b.txt is not kept: %+v", c)
		}
	}
	write(t, f.v.MountPoint, "a.txt", "a3")
	if r := f.save(); read(t, f.inFolder("a.txt")) != "a3" || len(r.Folder.Conflicts) != 0 {
		t.Errorf("after: %+v", r.Folder)
	}
	f.noLeftovers()
}

// A folder of the mirror folder replaced by a symlink (before a write-back,
// or while it runs, its folder moved away) is never followed: nothing is
// written where the symlink points; the symlink is kept as a conflict
// copy, and what was written in the moved folder stays in the folder.
func TestMirrorNeverFollowsASymlinkInTheFolder(t *testing.T) {
	f := newMirror(t, map[string]string{"sub/a.txt": "a", "two/b.txt": "b"})
	target := filepath.Join(f.base, "elsewhere")
	write(t, target, "canary", "untouched")
	os.RemoveAll(f.inFolder("sub"))
	os.Symlink(target, f.inFolder("sub"))
	write(t, f.v.MountPoint, "sub/a.txt", "a2")
	r := f.save()
	if fi, err := os.Lstat(f.inFolder("sub")); err != nil || !fi.IsDir() || read(t, f.inFolder("sub/a.txt")) != "a2" {
		t.Errorf("sub: %v %v", fi, err)
	}
	var kept bool
	for _, c := range r.Folder.Conflicts {
		if fi, err := os.Lstat(f.inFolder(c.Copy)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			kept = true
		}
	}
	if !kept {
		t.Errorf("the symlink is not kept as a copy: %+v", r.Folder.Conflicts)
	}
	// While the write-back runs: its folder moved away, a symlink put there.
	write(t, f.v.MountPoint, "two/b.txt", "b2")
	f.k.placing = func(*foldersync.PathWrite) {
		os.Rename(f.inFolder("two"), f.inFolder("two.moved"))
		os.Symlink(target, f.inFolder("two"))
	}
	f.save()
	f.k.placing = nil
	ents, _ := os.ReadDir(target)
	if len(ents) != 1 || read(t, filepath.Join(target, "canary")) != "untouched" {
		t.Errorf("written through a symlink: %v", ents)
	}
	if read(t, f.inFolder("two.moved/b.txt")) != "b2" {
		t.Errorf("the moved folder holds %q", read(t, f.inFolder("two.moved/b.txt")))
	}
	f.noLeftovers()
}
