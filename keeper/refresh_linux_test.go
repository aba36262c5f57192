//go:build linux

package keeper

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// refresh runs a refresh of f's disk and fails the test on an error.
func (f *mfix) refresh() Refreshed {
	f.t.Helper()
	r, err := f.k.Refresh(f.ctx, f.v, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

// changes counts the changes kept in f's folder.
func (f *mfix) changes() int {
	f.t.Helper()
	n, err := f.k.FolderChanges(f.v)
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

// noCopies: no conflict copy anywhere under dir.
func noCopies(t *testing.T, dir string) {
	t.Helper()
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil && strings.Contains(filepath.Base(p), ".rambar-") {
			t.Errorf("left under %s: %s", dir, p)
		}
		return nil
	})
}

// Every kind of change made in the folder reaches the disk: an edit, an
// addition, a deletion, a folder renamed, a hard link made, a symlink
// (one pointing outside, never followed), chmod, an xattr, touch, a
// non-UTF-8 name. The count of changes kept in the folder shows them
// and is 0 after; the next save writes nothing back, and no conflict
// copy is made on either side.
func TestRefreshTakesEveryChange(t *testing.T) {
	f := newMirror(t, map[string]string{"edit.txt": "old", "gone.txt": "bye", "dir/a": "a", "dir/sub/b": "b",
		"mode.sh": "#!/bin/sh\n", "x.txt": "x", "link-src": "shared", "touch.txt": "t", "keep.txt": "k",
		"perm/p": "p", "tofolder": "a file, then a folder", "tofile/inner": "a folder, then a file"})
	if n := f.changes(); n != 0 {
		t.Fatalf("a freshly loaded disk has %d changes kept in its folder", n)
	}
	write(t, f.folder, "edit.txt", "new, from the folder")
	write(t, f.folder, "added/deep/new.txt", "added")
	os.Remove(f.inFolder("gone.txt"))
	if err := os.Rename(f.inFolder("dir"), f.inFolder("renamed")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(f.inFolder("link-src"), f.inFolder("hardlink")); err != nil {
		t.Fatal(err)
	}
	os.Symlink("edit.txt", f.inFolder("sym"))
	os.Symlink("/etc/passwd", f.inFolder("outside"))
	os.Symlink("../../../../etc", f.inFolder("up"))
	os.Chmod(f.inFolder("mode.sh"), 0o751)
	if err := unix.Setxattr(f.inFolder("x.txt"), "user.tag", []byte("v1"), 0); err != nil {
		t.Fatal(err)
	}
	old := int64(1_000_000_000) * 1e9
	ts := []unix.Timespec{unix.NsecToTimespec(old), unix.NsecToTimespec(old)}
	unix.UtimesNanoAt(unix.AT_FDCWD, f.inFolder("touch.txt"), ts, 0)
	odd := "caf\xe9-\xff.txt"
	write(t, f.folder, odd, "latin-1 name")
	os.Chmod(f.inFolder("perm"), 0o700)
	unix.Mkfifo(f.inFolder("fifo"), 0o600)
	os.Chmod(f.inFolder("fifo"), 0o620)
	os.Remove(f.inFolder("tofolder"))
	write(t, f.folder, "tofolder/now", "a folder now")
	os.RemoveAll(f.inFolder("tofile"))
	write(t, f.folder, "tofile", "a file now")
	if n := f.changes(); n < 17 {
		t.Errorf("%d changes kept in the folder, want at least 17", n)
	}
	r := f.refresh()
	if len(r.Left) > 0 || len(r.NotKept) > 0 || len(r.Conflicts()) > 0 || r.Took <= 0 {
		t.Errorf("left %v, not kept %v, conflicts %v, took %v", r.Left, r.NotKept, r.Conflicts(), r.Took)
	}
	for p, want := range map[string]string{"edit.txt": "new, from the folder", "added/deep/new.txt": "added", "renamed/a": "a",
		"renamed/sub/b": "b", "hardlink": "shared", odd: "latin-1 name", "keep.txt": "k", "tofolder/now": "a folder now",
		"tofile": "a file now"} {
		if got := read(t, f.disk(p)); got != want {
			t.Errorf("disk %q = %q, want %q", p, got, want)
		}
	}
	absent(t, f.disk("gone.txt"))
	absent(t, f.disk("dir"))
	if inode(t, f.disk("hardlink")) != inode(t, f.disk("link-src")) {
		t.Error("the hard link made in the folder is not a link on the disk")
	}
	for p, want := range map[string]string{"sym": "edit.txt", "outside": "/etc/passwd", "up": "../../../../etc"} {
		if got, err := os.Readlink(f.disk(p)); err != nil || got != want {
			t.Errorf("disk %s -> %q (%v), want a symlink to %q", p, got, err, want)
		}
	}
	if fi, _ := os.Stat(f.disk("perm")); fi == nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the folder's chmod did not reach the disk: %v", fi)
	}
	if fi, _ := os.Lstat(f.disk("fifo")); fi == nil || fi.Mode()&os.ModeNamedPipe == 0 || fi.Mode().Perm() != 0o620 {
		t.Errorf("the FIFO did not reach the disk: %v", fi)
	}
	if fi, _ := os.Stat(f.disk("mode.sh")); fi == nil || fi.Mode().Perm() != 0o751 {
		t.Errorf("the chmod did not reach the disk: %v", fi)
	}
	if v := xattrOf(t, f.disk("x.txt"), "user.tag"); v != "v1" {
		t.Errorf("the xattr did not reach the disk: %q", v)
	}
	var st unix.Stat_t
	unix.Lstat(f.disk("touch.txt"), &st)
	if tree.TsNano(st.Mtim) != old {
		t.Errorf("the touch did not reach the disk: %v", st.Mtim)
	}
	sameTree(t, digest(t, f.folder), digest(t, f.v.MountPoint))
	if n := f.changes(); n != 0 {
		t.Errorf("%d changes kept in the folder after the refresh", n)
	}
	before := digest(t, f.folder)
	s := f.save()
	if s.Folder != nil && (len(s.Folder.Conflicts) > 0 || s.Folder.KeptOutside > 0) {
		t.Errorf("the save after wrote back %+v", s.Folder)
	}
	sameTree(t, before, digest(t, f.folder))
	noCopies(t, f.folder)
	noCopies(t, f.v.MountPoint)
	if r := f.refresh(); r.Taken+r.Removed != 0 {
		t.Errorf("a second refresh took %d and removed %d", r.Taken, r.Removed)
	}
}

func xattrOf(t *testing.T, p, name string) string {
	t.Helper()
	b := make([]byte, 256)
	n, err := unix.Lgetxattr(p, name, b)
	if err != nil {
		return ""
	}
	return string(b[:n])
}

// A path changed on both sides before the refresh is a conflict as the
// write-back has it: the disk's version under the name, the folder's as a
// conflict copy, on both sides after the refresh. One the disk changes
// while the refresh runs is left on the disk as it is, and the save
// after the refresh keeps both; the next refresh brings the copy over.
func TestRefreshKeepsBothWhereBothChanged(t *testing.T) {
	f := newMirror(t, map[string]string{"both.txt": "base", "race.txt": "base", "calm.txt": "calm"})
	write(t, f.folder, "both.txt", "the folder's")
	write(t, f.v.MountPoint, "both.txt", "the disk's")
	write(t, f.folder, "race.txt", "the folder's race")
	write(t, f.folder, "calm.txt", "calm, edited in the folder")
	f.k.refreshing = func() { write(t, f.v.MountPoint, "race.txt", "the disk's race") }
	r := f.refresh()
	f.k.refreshing = nil
	copies := map[string]string{}
	for _, c := range r.Conflicts() {
		copies[c.Path] = c.Copy
	}
	if copies["both.txt"] == "" || copies["race.txt"] == "" {
		t.Fatalf("conflicts %+v, want both.txt and race.txt with copies", r.Conflicts())
	}
	if len(r.Left) != 1 || r.Left[0] != "race.txt" {
		t.Errorf("left %v, want [race.txt]", r.Left)
	}
	for p, want := range map[string]string{"both.txt": "the disk's", copies["both.txt"]: "the folder's", "calm.txt": "calm, edited in the folder",
		"race.txt": "the disk's race"} {
		if got := read(t, f.disk(p)); got != want {
			t.Errorf("disk %s = %q, want %q", p, got, want)
		}
	}
	for p, want := range map[string]string{"both.txt": "the disk's", copies["both.txt"]: "the folder's", "race.txt": "the disk's race",
		copies["race.txt"]: "the folder's race"} {
		if got := read(t, f.inFolder(p)); got != want {
			t.Errorf("folder %s = %q, want %q", p, got, want)
		}
	}
	if n := f.changes(); n != 1 {
		t.Errorf("%d changes kept in the folder, want 1 (the race's copy)", n)
	}
	f.refresh()
	sameTree(t, digest(t, f.folder), digest(t, f.v.MountPoint))
	if n := f.changes(); n != 0 {
		t.Errorf("%d changes kept in the folder after the second refresh", n)
	}
}

// A symlink planted in the folder, where a folder or a file was or is
// new, is taken as a symlink: never followed, nothing outside the folder
// read, nothing outside the disk written; one swapped in for a folder
// after the refresh looked is not crossed either.
func TestRefreshNeverFollowsASymlink(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, "secret", "outside the folder")
	write(t, outside, "sub/inner", "inside the outside")
	f := newMirror(t, map[string]string{"dir/a": "a", "file.txt": "f", "swap/b": "b"})
	os.RemoveAll(f.inFolder("dir"))
	os.Symlink(outside, f.inFolder("dir"))
	os.Remove(f.inFolder("file.txt"))
	os.Symlink(filepath.Join(outside, "secret"), f.inFolder("file.txt"))
	os.Symlink(filepath.Join(outside, "sub"), f.inFolder("newlink"))
	write(t, f.folder, "swap/new.txt", "new in swap")
	f.k.refreshing = func() {
		os.Rename(f.inFolder("swap"), f.inFolder("swap.old"))
		os.Symlink(outside, f.inFolder("swap"))
	}
	r := f.refresh()
	f.k.refreshing = nil
	for _, p := range []string{"dir", "file.txt", "newlink"} {
		if fi, err := os.Lstat(f.disk(p)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("disk %s is not a symlink: %v %v", p, fi, err)
		}
	}
	// swap/new.txt may be taken through the folder's descriptor the
	// refresh held (the folder's own file, moved), never from outside.
	for p, d := range digest(t, f.v.MountPoint) {
		if strings.Contains(d, "outside") {
			t.Errorf("disk %s came from outside the folder: %s", p, d)
		}
	}
	filepath.Walk(f.v.MountPoint, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "outside") {
				t.Errorf("disk %s holds the outside's bytes", p)
			}
		}
		return nil
	})
	absent(t, filepath.Join(outside, "new.txt"))
	if read(t, filepath.Join(outside, "secret")) != "outside the folder" {
		t.Error("the outside was changed")
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 2 {
		t.Errorf("the outside folder holds %d entries, want 2", len(ents))
	}
	if read(t, f.disk("swap/b")) != "b" {
		t.Error("the disk's swap/b is gone")
	}
	t.Logf("left %v, not kept %v", r.Left, r.NotKept)
}

// A folder emptied (its drive not mounted there) is never taken onto a
// disk that holds files: refused, nothing deleted; a folder missing is
// refused as the write-back refuses it.
func TestRefreshRefusesToEmptyTheDisk(t *testing.T) {
	f := newMirror(t, map[string]string{"a": "a", "sub/b": "b"})
	os.RemoveAll(f.inFolder("a"))
	os.RemoveAll(f.inFolder("sub"))
	if _, err := f.k.Refresh(f.ctx, f.v, nil); !errors.Is(err, ErrRefused) {
		t.Errorf("a refresh from an empty folder: %v, want refused", err)
	}
	if read(t, f.disk("a")) != "a" || read(t, f.disk("sub/b")) != "b" {
		t.Error("the disk lost files")
	}
	os.Remove(f.folder)
	if _, err := f.k.Refresh(f.ctx, f.v, nil); err == nil {
		t.Error("a refresh from a missing folder was not refused")
	}
	if read(t, f.disk("a")) != "a" {
		t.Error("the disk lost files")
	}
}

// What a save kept in the folder's favour still counts as kept in the
// folder, and a refresh takes it: a path deleted in the folder that the
// disk then touched (reported once by the save), an edit in the folder of
// a file whose time the disk changed, a file the disk deleted that the
// folder edited.
func TestRefreshTakesWhatASaveKeptInTheFolder(t *testing.T) {
	f := newMirror(t, map[string]string{"a.txt": "a", "b.txt": "b", "c.txt": "c"})
	os.Remove(f.inFolder("a.txt"))
	write(t, f.folder, "b.txt", "b, edited in the folder")
	write(t, f.folder, "c.txt", "c, edited in the folder")
	later := time.Now().Add(time.Hour)
	os.Chtimes(f.disk("a.txt"), later, later)
	os.Chtimes(f.disk("b.txt"), later, later)
	os.Remove(f.disk("c.txt"))
	r := f.save()
	if r.Folder == nil || len(r.Folder.DeletedOutside) != 1 {
		t.Fatalf("the save: %+v", r.Folder)
	}
	if n := f.changes(); n != 3 {
		t.Errorf("%d changes kept in the folder after the save, want 3", n)
	}
	f.refresh()
	absent(t, f.disk("a.txt"))
	if read(t, f.disk("b.txt")) != "b, edited in the folder" || read(t, f.disk("c.txt")) != "c, edited in the folder" {
		t.Error("the folder's edits did not reach the disk")
	}
	if n := f.changes(); n != 0 {
		t.Errorf("%d changes kept in the folder after the refresh", n)
	}
	sameTree(t, timelessDirs(digest(t, f.folder)), timelessDirs(digest(t, f.v.MountPoint)))
}
