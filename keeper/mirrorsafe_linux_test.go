//go:build linux

package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"rambar/foldersync"
	"rambar/mirrorfolder"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// mfix is a Mirror disk on real tmpfs: the folder on one tmpfs (base), the
// disk another, the data folder on base.
type mfix struct {
	t            *testing.T
	k            *Keeper
	base, folder string
	v            ramdisk.Volume
	ctx          context.Context
}

// tmpfsAt mounts a tmpfs of size at a new folder; cleanup unmounts it
// (an unmount the test did itself is fine).
func tmpfsAt(t *testing.T, dir, size string) string {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("rambar-test", dir, "tmpfs", 0, "size="+size+",mode=0755"); err != nil {
		t.Fatalf("mount tmpfs (tests run as root): %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// newMirror makes a folder holding files (path: contents), mirrors it onto
// a fresh disk and loads it.
func newMirror(t *testing.T, files map[string]string) *mfix {
	t.Helper()
	return newMirrorFill(t, func(folder string) {
		for p, c := range files {
			write(t, folder, p, c)
		}
	})
}

// newMirrorFill is newMirror with the folder filled by fill.
func newMirrorFill(t *testing.T, fill func(folder string)) *mfix {
	t.Helper()
	base := tmpfsAt(t, "", "64m")
	f := &mfix{t: t, base: base, folder: filepath.Join(base, "site"), ctx: context.Background()}
	os.MkdirAll(f.folder, 0o755)
	fill(f.folder)
	f.k = NewKeeper(filepath.Join(base, "data"))
	if _, err := f.k.Setup("Site", Options{Mode: ramdisk.Mirror, MirrorPath: f.folder}); err != nil {
		t.Fatal(err)
	}
	f.v = ramdisk.Volume{Name: "Site", MountPoint: tmpfsAt(t, "", "64m")}
	if _, err := f.k.Load(f.ctx, f.v, nil); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *mfix) disk(p string) string     { return filepath.Join(f.v.MountPoint, p) }
func (f *mfix) inFolder(p string) string { return filepath.Join(f.folder, p) }

func (f *mfix) save() Result {
	f.t.Helper()
	r, err := f.k.Save(f.ctx, f.v, SaveOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func absent(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists (%v), want it absent", p, err)
	}
}

// noLeftovers: no temporary name in the folder, nothing of RAMBar's
// beside it.
func (f *mfix) noLeftovers() {
	f.t.Helper()
	noTemps(f.t, f.folder)
	ents, _ := os.ReadDir(filepath.Dir(f.folder))
	for _, e := range ents {
		if strings.Contains(e.Name(), ".rambar-") {
			f.t.Errorf("left behind beside the folder: %s", e.Name())
		}
	}
}

// noTemps: no write-back's temporary name anywhere under dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), foldersync.TempPrefix) {
			t.Errorf("a temporary name is left: %s", p)
		}
		return nil
	})
}

func TestMirrorKeepsOutsideEdit(t *testing.T) {
	f := newMirror(t, map[string]string{"index.html": "v1", "other.txt": "o1"})
	write(t, f.folder, "index.html", "edited outside")
	write(t, f.v.MountPoint, "other.txt", "edited on the disk")
	r := f.save()
	if got := read(t, f.inFolder("index.html")); got != "edited outside" {
		t.Errorf("index.html = %q, want the outside edit", got)
	}
	if got := read(t, f.inFolder("other.txt")); got != "edited on the disk" {
		t.Errorf("other.txt = %q, want the disk's edit", got)
	}
	// The write-back looked only at other.txt, the path the disk changed.
	if r.Folder == nil || len(r.Folder.Conflicts) != 0 || r.Folder.KeptOutside != 0 {
		t.Errorf("write-back: %+v", r.Folder)
	}
	// A later disk edit elsewhere does not revert it either.
	write(t, f.v.MountPoint, "third.txt", "3")
	f.save()
	if got := read(t, f.inFolder("index.html")); got != "edited outside" {
		t.Errorf("after a second save index.html = %q", got)
	}
	f.noLeftovers()
}

func TestMirrorKeepsOutsideAdd(t *testing.T) {
	f := newMirror(t, map[string]string{"a.txt": "a"})
	write(t, f.folder, "outside.txt", "added outside")
	write(t, f.folder, "newdir/deep.txt", "deep outside")
	write(t, f.v.MountPoint, "disk.txt", "added on the disk")
	f.save()
	write(t, f.v.MountPoint, "a.txt", "a2")
	f.save()
	for p, want := range map[string]string{"outside.txt": "added outside", "newdir/deep.txt": "deep outside",
		"disk.txt": "added on the disk", "a.txt": "a2"} {
		if got := read(t, f.inFolder(p)); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
}

// A path deleted in the folder stays deleted though the disk has it; it is
// reported when the disk touches it without changing its bytes (a write-
// back looks only at the paths the disk changed), once.
func TestMirrorKeepsOutsideDelete(t *testing.T) {
	f := newMirror(t, map[string]string{"a.txt": "a", "b.txt": "b", "c.txt": "c"})
	os.Remove(f.inFolder("a.txt"))
	write(t, f.v.MountPoint, "b.txt", "b2")
	os.Remove(f.disk("c.txt")) // deleted on the disk, unchanged in the folder: goes
	later := time.Now().Add(time.Hour)
	os.Chtimes(f.disk("a.txt"), later, later)
	r := f.save()
	absent(t, f.inFolder("a.txt"))
	absent(t, f.inFolder("c.txt"))
	if r.Folder == nil || len(r.Folder.DeletedOutside) != 1 || r.Folder.DeletedOutside[0] != "a.txt" {
		t.Errorf("deleted outside reported as %+v", r.Folder)
	}
	write(t, f.v.MountPoint, "b.txt", "b3")
	os.Chtimes(f.disk("a.txt"), later.Add(time.Hour), later.Add(time.Hour))
	r = f.save()
	absent(t, f.inFolder("a.txt"))
	if len(r.Folder.DeletedOutside) != 0 {
		t.Errorf("reported again: %v", r.Folder.DeletedOutside)
	}
	if got := read(t, f.inFolder("b.txt")); got != "b3" {
		t.Errorf("b.txt = %q", got)
	}
}

var conflictRE = regexp.MustCompile(`^index\.rambar-conflict-\d{8}-\d{6}\.html$`)

func TestMirrorBothEditedKeepsBoth(t *testing.T) {
	f := newMirror(t, map[string]string{"index.html": "v1", "gone.txt": "g", "x.txt": "x"})
	write(t, f.v.MountPoint, "index.html", "the disk's edit")
	write(t, f.folder, "index.html", "the folder's edit")
	os.Remove(f.disk("gone.txt"))
	write(t, f.folder, "gone.txt", "edited outside, deleted on the disk")
	r := f.save()
	if got := read(t, f.inFolder("index.html")); got != "the disk's edit" {
		t.Errorf("index.html = %q, want the disk's version under the name", got)
	}
	var copies []string
	ents, _ := os.ReadDir(f.folder)
	for _, e := range ents {
		if conflictRE.MatchString(e.Name()) {
			copies = append(copies, e.Name())
		}
	}
	if len(copies) != 1 || read(t, f.inFolder(copies[0])) != "the folder's edit" {
		t.Fatalf("conflict copies %v", copies)
	}
	if got := read(t, f.inFolder("gone.txt")); got != "edited outside, deleted on the disk" {
		t.Errorf("gone.txt = %q: an edit must win over a deletion", got)
	}
	if r.Folder == nil || len(r.Folder.Conflicts) != 2 {
		t.Fatalf("conflicts %+v", r.Folder)
	}
	c := r.Folder.Conflicts[1]
	if c.Path != "index.html" || c.Copy != copies[0] || !strings.Contains(c.String(), copies[0]) {
		t.Errorf("conflict %+v", c)
	}
	// Settled: the next save reports nothing and keeps both.
	write(t, f.v.MountPoint, "x.txt", "x2")
	r = f.save()
	if len(r.Folder.Conflicts) != 0 || read(t, f.inFolder(copies[0])) != "the folder's edit" {
		t.Errorf("after the next save: %+v", r.Folder)
	}
}

func TestMirrorSameSizeSameMtimeReachesFolder(t *testing.T) {
	f := newMirror(t, map[string]string{"build/out.bin": "aaaaaaaa"})
	fi, _ := os.Stat(f.disk("build/out.bin"))
	write(t, f.v.MountPoint, "build/out.bin", "bbbbbbbb")
	os.Chtimes(f.disk("build/out.bin"), fi.ModTime(), fi.ModTime())
	f.save()
	if got := read(t, f.inFolder("build/out.bin")); got != "bbbbbbbb" {
		t.Errorf("folder has %q: an edit keeping size and mtime did not reach it", got)
	}
}

func TestMirrorOneDiskPerFolder(t *testing.T) {
	f := newMirror(t, map[string]string{"a": "a"})
	os.MkdirAll(f.inFolder("sub"), 0o755)
	for _, p := range []string{f.folder, f.inFolder("sub")} {
		_, err := f.k.Setup("Other", Options{Mode: ramdisk.Mirror, MirrorPath: p})
		if !errors.Is(err, ErrClaimed) || !strings.Contains(err.Error(), "disk Site") {
			t.Errorf("second mirror of %s: %v", p, err)
		}
	}
	if err := f.k.CheckClaim("Site", f.folder); err != nil {
		t.Errorf("the holder itself: %v", err)
	}
	// Another process sees the claim the same way: it is in the data folder.
	other := NewKeeper(f.k.Data)
	if err := other.CheckClaim("Other", f.folder); !errors.Is(err, ErrClaimed) {
		t.Errorf("another keeper: %v", err)
	}
	// Once the disk is gone, the claim is stale.
	if err := unix.Unmount(f.v.MountPoint, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.k.Setup("Other", Options{Mode: ramdisk.Mirror, MirrorPath: f.folder}); err != nil {
		t.Errorf("after the holder was ejected: %v", err)
	}
}

func TestMirrorRefusesFolders(t *testing.T) {
	base := tmpfsAt(t, "", "16m")
	k := NewKeeper(filepath.Join(base, "data"))
	k.Home = filepath.Join(base, "home")
	disk := tmpfsAt(t, filepath.Join(base, "disk"), "4m")
	os.MkdirAll(filepath.Join(k.Data, "x"), 0o700)
	os.MkdirAll(k.Home, 0o755)
	write(t, base, "file", "a file")
	os.MkdirAll(filepath.Join(base, "real"), 0o755)
	os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link"))
	os.MkdirAll(filepath.Join(base, "holder"), 0o755)
	tmpfsAt(t, filepath.Join(base, "holder", "inner"), "1m")
	write(t, filepath.Join(base, "holder", "inner"), "precious", "p")
	mnt := tmpfsAt(t, filepath.Join(base, "mnt"), "1m")
	k.RAMDisks = func() []string { return []string{disk} }
	cases := []struct{ path, mountPoint, want string }{
		{"/", "", "whole file system"},
		{"relative/path", "", "absolute"},
		{base, "", "holds RAMBar's data folder"},
		{filepath.Join(k.Data, "x"), "", "inside RAMBar's data folder"},
		{k.Home, "", "home folder"},
		{filepath.Join(disk, "sub"), "", "inside the RAM disk at " + disk},
		{filepath.Join(base, "future", "site"), filepath.Join(base, "future"), "inside the RAM disk"},
		{filepath.Join(base, "file"), "", "is a file"},
		{filepath.Join(base, "link"), "", "symlink to " + filepath.Join(base, "real")},
		{filepath.Join(base, "link", "sub"), "", "give the real path (" + filepath.Join(base, "real", "sub") + ")"},
		{mnt, "", "mount point of another file system"},
		{filepath.Join(base, "holder"), "", "holds " + filepath.Join(base, "holder", "inner")},
		{filepath.Join(base, "missing"), "", "it does not exist"},
		{filepath.Join(base, "future"), filepath.Join(base, "future", "Bad"), "holds the RAM disk's mount point " + filepath.Join(base, "future", "Bad")},
	}
	for _, c := range cases {
		os.MkdirAll(filepath.Join(base, "future", "site"), 0o755)
		_, err := k.Setup("Bad", Options{Mode: ramdisk.Mirror, MirrorPath: c.path, MountPoint: c.mountPoint})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line saying %q", c.path, err, c.want)
		}
		if c.path[0] == '/' && c.path != "/" && !errors.Is(err, mirrorfolder.ErrBadFolder) {
			t.Errorf("%s: %v is not ErrBadFolder", c.path, err)
		}
		if missing := strings.HasSuffix(c.path, "missing"); missing != errors.Is(err, mirrorfolder.ErrFolderMissing) {
			t.Errorf("%s: %v: ErrFolderMissing %v, want %v", c.path, err, !missing, missing)
		}
	}
	// Under sudo, the invoking user's home too (daemon's is /usr/sbin).
	t.Setenv("SUDO_USER", "daemon")
	if _, err := k.Setup("Bad", Options{Mode: ramdisk.Mirror, MirrorPath: "/usr"}); err == nil || !strings.Contains(err.Error(), "home folder /usr/sbin") {
		t.Errorf("the sudo user's home as a whole: %v", err)
	}
	absent(t, filepath.Join(base, "missing"))
	if _, err := k.State("Bad"); !errors.Is(err, ErrNotKept) {
		t.Errorf("a refused folder left a state: %v", err)
	}
	if read(t, filepath.Join(base, "holder", "inner", "precious")) != "p" {
		t.Error("the inner mount was touched")
	}
	// Asked to, a missing folder is made.
	if _, err := k.Setup("Made", Options{Mode: ramdisk.Mirror, MirrorPath: filepath.Join(base, "missing"), CreateFolder: true}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(base, "missing")); err != nil || !fi.IsDir() {
		t.Errorf("--create-folder did not make it: %v", err)
	}
}

func TestMirrorMountInsideIsNeverEntered(t *testing.T) {
	f := newMirror(t, map[string]string{"a.txt": "a"})
	inner := tmpfsAt(t, f.inFolder("mnt"), "1m")
	write(t, inner, "precious", "on another file system")
	before := digest(t, f.folder)
	write(t, f.v.MountPoint, "a.txt", "a2")
	_, err := f.k.Save(f.ctx, f.v, SaveOptions{})
	if err == nil || !strings.Contains(err.Error(), "mount point") {
		t.Fatalf("save with a mount inside the folder: %v", err)
	}
	if !ramdisk.IsMountPoint(inner) || read(t, filepath.Join(inner, "precious")) != "on another file system" {
		t.Error("the mount inside the folder was moved or emptied")
	}
	sameTree(t, before, digest(t, f.folder))
	f.noLeftovers()
	if dirty, _ := f.k.Dirty(f.v); !dirty {
		t.Error("a disk not written back is not dirty: eject would drop it")
	}
}

func TestMirrorKeepsFolderMetadata(t *testing.T) {
	f := newMirror(t, map[string]string{"private.txt": "secret v1", "owned.txt": "o1"})
	// An ACL denying user 65534 (ACL_USER_OBJ rw, ACL_USER 65534 none,
	// ACL_GROUP_OBJ r, ACL_MASK r, ACL_OTHER r).
	acl := []byte{2, 0, 0, 0,
		1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
		2, 0, 0, 0, 0xfe, 0xff, 0, 0,
		4, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x10, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff}
	if err := unix.Setxattr(f.inFolder("private.txt"), "system.posix_acl_access", acl, 0); err != nil {
		t.Fatalf("tmpfs without POSIX ACLs: %v", err)
	}
	os.Lchown(f.inFolder("owned.txt"), 65534, 65534)
	os.Chmod(f.inFolder("owned.txt"), 0o640)
	// The record must see these as the folder's own (a chmod outside).
	write(t, f.v.MountPoint, "private.txt", "secret v2")
	write(t, f.v.MountPoint, "owned.txt", "o2")
	t.Setenv("SUDO_UID", "4321")
	t.Setenv("SUDO_GID", "4322")
	write(t, f.v.MountPoint, "new.txt", "new")
	f.save()
	if read(t, f.inFolder("private.txt")) != "secret v2" {
		t.Fatal("the disk's edit did not arrive")
	}
	got := make([]byte, 256)
	n, err := unix.Getxattr(f.inFolder("private.txt"), "system.posix_acl_access", got)
	if err != nil || string(got[:n]) != string(acl) {
		t.Errorf("ACL after the write-back: %x (%v), want %x", got[:max(n, 0)], err, acl)
	}
	var st unix.Stat_t
	unix.Lstat(f.inFolder("owned.txt"), &st)
	if st.Uid != 65534 || st.Gid != 65534 || st.Mode&0o777 != 0o640 {
		t.Errorf("owned.txt: uid %d gid %d mode %o, want 65534 65534 640", st.Uid, st.Gid, st.Mode&0o777)
	}
	unix.Lstat(f.inFolder("new.txt"), &st)
	if st.Uid != 4321 || st.Gid != 4322 {
		t.Errorf("a new file under sudo is owned by %d:%d, want the invoking user 4321:4322", st.Uid, st.Gid)
	}
}

// Files are pushed one by one (macOS: a barrier each) and flushed once
// before the first rename; the renames once more before the record.
func TestMirrorFlushesBeforeTheRenames(t *testing.T) {
	f := newMirror(t, map[string]string{"a": "a"})
	for i := 0; i < 40; i++ {
		write(t, f.v.MountPoint, "many/f"+string(rune('A'+i)), strings.Repeat("x", i))
	}
	var files, flushes int
	f.k.placing = func(w *foldersync.PathWrite) { files, flushes = w.Files, w.Flushes }
	f.save()
	if files != 40 || flushes != 1 {
		t.Errorf("%d files written, %d flushes before the renames; want 40 and exactly 1", files, flushes)
	}
}

func TestConflictName(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 15, 0, 0, time.UTC)
	for in, want := range map[string]string{
		"site/index.html": "site/index.rambar-conflict-20261201-101500.html",
		"Makefile":        "Makefile.rambar-conflict-20261201-101500",
		".bashrc":         ".bashrc.rambar-conflict-20261201-101500",
		"a.tar.gz":        "a.tar.rambar-conflict-20261201-101500.gz",
	} {
		if got := foldersync.ConflictName(in, at, 1); got != want {
			t.Errorf("conflictName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := foldersync.ConflictName("x.txt", at, 2); got != "x.rambar-conflict-20261201-101500-2.txt" {
		t.Errorf("second copy: %q", got)
	}
	for _, long := range []string{strings.Repeat("n", 250) + ".txt", strings.Repeat("é", 125) + ".txt"} {
		if got := foldersync.ConflictName(long, at, 1); len(got) > 255 || !utf8.ValidString(got) {
			t.Errorf("name of %d bytes: %q", len(got), got)
		}
	}
}

// A folder file written while a write-back runs is read again at the next
// one: the record does not vouch for bytes it did not see.
func TestMirrorEditDuringWriteBackIsKept(t *testing.T) {
	f := newMirror(t, map[string]string{"a.txt": "v1", "b.txt": "b"})
	write(t, f.v.MountPoint, "b.txt", "b2")
	f.k.placing = func(*foldersync.PathWrite) { os.WriteFile(f.inFolder("a.txt"), []byte("written meanwhile"), 0o644) }
	f.save()
	f.k.placing = nil
	if got := read(t, f.inFolder("a.txt")); got != "written meanwhile" {
		t.Fatalf("a.txt = %q", got)
	}
	write(t, f.v.MountPoint, "a.txt", "the disk's v2")
	r := f.save()
	if len(r.Folder.Conflicts) != 1 || read(t, f.inFolder(r.Folder.Conflicts[0].Copy)) != "written meanwhile" {
		t.Errorf("the edit made during a write-back was not kept: %+v", r.Folder)
	}
}

// TestMirrorClaimAfterWriteBack: a claim names the folder by path as well
// as by inode: an unrelated folder that has the inode the claim recorded
// (as after the folder was moved away and the inode reused) is not claimed.
func TestMirrorClaimAfterWriteBack(t *testing.T) {
	f := newMirror(t, map[string]string{"a": "a"})
	write(t, f.v.MountPoint, "b", "from the disk")
	f.save()
	other := filepath.Join(f.base, "other")
	os.MkdirAll(other, 0o755)
	var st unix.Stat_t
	if err := unix.Stat(other, &st); err != nil {
		t.Fatal(err)
	}
	// As if the recorded inode had been reused by other.
	files, _ := filepath.Glob(filepath.Join(f.k.Data, "claims", "*.json"))
	if len(files) != 1 {
		t.Fatalf("claims: %v", files)
	}
	var c mirrorfolder.Claim
	b, _ := os.ReadFile(files[0])
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	c.Dev, c.Ino = uint64(st.Dev), uint64(st.Ino)
	b, _ = json.Marshal(c)
	os.WriteFile(files[0], b, 0o600)
	if err := f.k.CheckClaim("Other", other); err != nil {
		t.Errorf("an unrelated folder with the claim's old inode: %v", err)
	}
	if err := f.k.CheckClaim("Other", f.folder); !errors.Is(err, ErrClaimed) {
		t.Errorf("the mirrored folder itself after a write-back: %v", err)
	}
}
