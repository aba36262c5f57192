//go:build linux

package keeper

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return uint64(st.Ino)
}

// A shell (sleep) whose working folder is inside the mirror folder stays
// in a live folder across ten saves that add, change and remove files
// around it: no folder is ever replaced, and unchanged files keep their
// inodes.
func TestMirrorFoldersStayLive(t *testing.T) {
	f := newMirror(t, map[string]string{"sub/deep/a.txt": "a", "sub/b.txt": "b", "top.txt": "t"})
	deep := f.inFolder("sub/deep")
	sh := exec.Command("sleep", "600")
	sh.Dir = deep
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Process.Kill(); sh.Wait() })
	dirs := map[string]uint64{}
	for _, p := range []string{".", "sub", "sub/deep"} {
		dirs[p] = inode(t, f.inFolder(p))
	}
	top := inode(t, f.inFolder("top.txt"))
	for i := 0; i < 10; i++ {
		write(t, f.v.MountPoint, "sub/deep/a.txt", strings.Repeat("a", i+2))
		write(t, f.v.MountPoint, "sub/deep/new"+string(rune('0'+i)), "new")
		if i > 0 {
			os.Remove(f.disk("sub/deep/new" + string(rune('0'+i-1))))
		}
		write(t, f.v.MountPoint, "sub/b.txt", "b"+string(rune('0'+i)))
		f.save()
		cwd, err := os.Readlink("/proc/" + strconv.Itoa(sh.Process.Pid) + "/cwd")
		if err != nil || cwd != deep {
			t.Fatalf("save %d: the shell's folder is %q (%v), want %s, live", i, cwd, err, deep)
		}
		for p, ino := range dirs {
			if inode(t, f.inFolder(p)) != ino {
				t.Errorf("save %d: folder %s was replaced", i, p)
			}
		}
		if inode(t, f.inFolder("top.txt")) != top {
			t.Errorf("save %d: top.txt, unchanged, was replaced", i)
		}
	}
	if got := read(t, f.inFolder("sub/deep/a.txt")); got != strings.Repeat("a", 11) {
		t.Errorf("a.txt = %q", got)
	}
	absent(t, f.inFolder("sub/deep/new8"))
	if read(t, f.inFolder("sub/deep/new9")) != "new" {
		t.Error("new9 missing")
	}
	f.noLeftovers()
}

// A folder whose name is 250 bytes long (no room for a name built from
// it) writes back, and so do a file and a folder of 250 bytes inside it.
func TestMirrorLongNamesWriteBack(t *testing.T) {
	base := tmpfsAt(t, "", "64m")
	long := strings.Repeat("n", 250)
	folder := filepath.Join(base, long)
	write(t, folder, long+"/"+strings.Repeat("f", 250), "v1")
	f := mirrorOf(t, base, folder)
	write(t, f.v.MountPoint, long+"/"+strings.Repeat("f", 250), "v2")
	write(t, f.v.MountPoint, strings.Repeat("g", 250), "new")
	write(t, f.folder, strings.Repeat("g", 250), "the folder's") // a conflict copy's name is cut to fit
	r := f.save()
	if read(t, filepath.Join(folder, long, strings.Repeat("f", 250))) != "v2" || read(t, filepath.Join(folder, strings.Repeat("g", 250))) != "new" {
		t.Error("the disk's versions did not arrive")
	}
	if len(r.Folder.Conflicts) != 1 || read(t, filepath.Join(folder, r.Folder.Conflicts[0].Copy)) != "the folder's" {
		t.Errorf("conflict %+v", r.Folder.Conflicts)
	}
	f.noLeftovers()
}

// mirrorOf mirrors folder (inside the tmpfs base) onto a fresh disk.
func mirrorOf(t *testing.T, base, folder string) *mfix {
	t.Helper()
	f := &mfix{t: t, base: base, folder: folder, ctx: t.Context()}
	f.k = NewKeeper(filepath.Join(base, "data"))
	if _, err := f.k.Setup("Site", Options{Mode: ramdisk.Mirror, MirrorPath: folder}); err != nil {
		t.Fatal(err)
	}
	f.v.Name, f.v.MountPoint = "Site", tmpfsAt(t, "", "64m")
	if _, err := f.k.Load(f.ctx, f.v, nil); err != nil {
		t.Fatal(err)
	}
	return f
}

// Hard links stay links: one file, several names, at the load and at each
// write-back (an edit through one name reaches every name, in the folder
// too), and a link the disk makes or breaks is made or broken in the folder.
func TestMirrorHardLinksStayLinks(t *testing.T) {
	f := newMirrorFill(t, func(folder string) {
		write(t, folder, "a/one", "shared v1")
		os.MkdirAll(filepath.Join(folder, "b"), 0o755)
		if err := os.Link(filepath.Join(folder, "a/one"), filepath.Join(folder, "b/two")); err != nil {
			t.Fatal(err)
		}
		write(t, folder, "other", "o")
	})
	if inode(t, f.disk("a/one")) != inode(t, f.disk("b/two")) {
		t.Fatal("the load split a hard link")
	}
	linked := func(a, b string) {
		t.Helper()
		if inode(t, f.inFolder(a)) != inode(t, f.inFolder(b)) {
			t.Errorf("%s and %s are not one file in the folder", a, b)
		}
	}
	write(t, f.v.MountPoint, "a/one", "shared v2") // in place: both names
	f.save()
	linked("a/one", "b/two")
	if read(t, f.inFolder("b/two")) != "shared v2" {
		t.Errorf("b/two = %q", read(t, f.inFolder("b/two")))
	}
	os.Link(f.disk("a/one"), f.disk("c"))
	f.save()
	linked("a/one", "c")
	// cp over one name: a file of its own on the disk, and in the folder.
	os.Remove(f.disk("b/two"))
	write(t, f.v.MountPoint, "b/two", "its own")
	f.save()
	linked("a/one", "c")
	if inode(t, f.inFolder("b/two")) == inode(t, f.inFolder("a/one")) || read(t, f.inFolder("a/one")) != "shared v2" {
		t.Error("the broken link is still one file in the folder")
	}
	f.noLeftovers()
}

// Names that are not UTF-8 (Latin-1), two of which are the same text once
// their bad bytes are replaced: a disk-only edit is written back with no
// conflict, a deletion is carried, and the record is never "corrupt".
func TestMirrorNonUTF8Names(t *testing.T) {
	e1, e2, dir := "caf\xe9.txt", "caf\xe8.txt", "d\xfcr"
	f := newMirror(t, map[string]string{e1: "e acute", e2: "e grave", dir + "/x": "x"})
	write(t, f.v.MountPoint, e1, "e acute, edited on the disk")
	r := f.save()
	if len(r.Folder.Conflicts) != 0 || read(t, f.inFolder(e1)) != "e acute, edited on the disk" || read(t, f.inFolder(e2)) != "e grave" {
		t.Errorf("a disk-only edit of a Latin-1 name: %+v", r.Folder)
	}
	os.Remove(f.disk(e2))
	write(t, f.v.MountPoint, dir+"/x", "x2")
	r = f.save()
	absent(t, f.inFolder(e2))
	if len(r.Folder.Conflicts) != 0 || read(t, f.inFolder(dir+"/x")) != "x2" || read(t, f.inFolder(e1)) != "e acute, edited on the disk" {
		t.Errorf("after a deletion: %+v", r.Folder)
	}
	for i := 0; i < 3; i++ {
		write(t, f.v.MountPoint, e1, strings.Repeat("e", i))
		if _, err := f.k.Save(f.ctx, f.v, SaveOptions{}); err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
	}
	f.noLeftovers()
}

// setFlags sets a file's inode flags (chattr) through FS_IOC_SETFLAGS.
func setFlags(t *testing.T, p string, flags int) {
	t.Helper()
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, flags); err != nil {
		t.Fatalf("chattr %s (tmpfs keeps flags from Linux 6.0): %v", p, err)
	}
}

func getFlags(t *testing.T, p string) int {
	t.Helper()
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	v, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil {
		t.Fatal(err)
	}
	return int(v)
}

const (
	fsImmutable = 0x10
	fsAppend    = 0x20
)

// An immutable (chattr +i) or append-only (+a) file in the folder is left
// as it is, flags and all, whatever the disk did to it: the disk's version
// is a conflict copy that names the flag, and nothing else is left behind.
func TestMirrorImmutableAndAppendOnlyFilesAreKept(t *testing.T) {
	f := newMirror(t, map[string]string{"locked.txt": "locked v1", "log.txt": "log v1", "plain.txt": "p"})
	setFlags(t, f.inFolder("locked.txt"), fsImmutable)
	setFlags(t, f.inFolder("log.txt"), fsAppend)
	t.Cleanup(func() {
		setFlags(t, f.inFolder("locked.txt"), 0)
		setFlags(t, f.inFolder("log.txt"), 0)
	})
	write(t, f.v.MountPoint, "locked.txt", "locked v2")
	os.Remove(f.disk("log.txt"))
	write(t, f.v.MountPoint, "plain.txt", "p2")
	r := f.save()
	if read(t, f.inFolder("locked.txt")) != "locked v1" || getFlags(t, f.inFolder("locked.txt"))&fsImmutable == 0 {
		t.Error("the immutable file was changed or lost its flag")
	}
	if read(t, f.inFolder("log.txt")) != "log v1" || getFlags(t, f.inFolder("log.txt"))&fsAppend == 0 {
		t.Error("the append-only file was deleted or lost its flag")
	}
	if read(t, f.inFolder("plain.txt")) != "p2" {
		t.Error("the rest was not written back")
	}
	var copied bool
	for _, c := range r.Folder.Conflicts {
		switch c.Path {
		case "locked.txt":
			copied = c.Copy != "" && read(t, f.inFolder(c.Copy)) == "locked v2" && strings.Contains(c.What, "immutable (chattr +i)")
		case "log.txt":
			if !strings.Contains(c.What, "append-only (chattr +a)") {
				t.Errorf("log.txt: %s", c.What)
			}
		}
	}
	if !copied || len(r.Folder.Conflicts) != 2 {
		t.Errorf("conflicts %+v", r.Folder.Conflicts)
	}
	f.noLeftovers()
}

// The Mirror load keeps setuid and setgid (the owner is set before the
// mode: a chown clears them), and the owner, as root.
func TestMirrorLoadKeepsSetuid(t *testing.T) {
	f := newMirrorFill(t, func(folder string) {
		write(t, folder, "bin/tool", "#!/bin/sh\n")
		os.Chown(filepath.Join(folder, "bin/tool"), 4321, 4322)
		os.Chmod(filepath.Join(folder, "bin/tool"), 0o755|os.ModeSetuid|os.ModeSetgid)
		os.Chown(filepath.Join(folder, "bin"), 4321, 4322)
		os.Chmod(filepath.Join(folder, "bin"), 0o755|os.ModeSetgid)
	})
	var st unix.Stat_t
	unix.Lstat(f.disk("bin/tool"), &st)
	if st.Mode&0o7777 != 0o6755 || st.Uid != 4321 || st.Gid != 4322 {
		t.Errorf("the disk's tool: mode %o, owner %d:%d; want 6755, 4321:4322", st.Mode&0o7777, st.Uid, st.Gid)
	}
	unix.Lstat(f.disk("bin"), &st)
	if st.Mode&0o7777 != 0o2755 {
		t.Errorf("the disk's folder: mode %o, want 2755", st.Mode&0o7777)
	}
}

// Metadata changed on the disk alone (an xattr added and one removed, a
// POSIX ACL, touch -d, chmod) reaches the folder, set in place: the
// folder's files keep their inodes (their bytes are not rewritten).
func TestMirrorMetadataOnlyChanges(t *testing.T) {
	f := newMirrorFill(t, func(folder string) {
		write(t, folder, "a.txt", "a")
		write(t, folder, "b.txt", "b")
		write(t, folder, "c.txt", "c")
		write(t, folder, "d/e.txt", "e")
		if err := unix.Setxattr(filepath.Join(folder, "a.txt"), "user.old", []byte("going"), 0); err != nil {
			t.Fatal(err)
		}
	})
	inos := map[string]uint64{}
	for _, p := range []string{"a.txt", "b.txt", "c.txt", "d"} {
		inos[p] = inode(t, f.inFolder(p))
	}
	unix.Setxattr(f.disk("a.txt"), "user.new", []byte("came"), 0)
	unix.Removexattr(f.disk("a.txt"), "user.old")
	acl := []byte{2, 0, 0, 0, 1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0xfe, 0xff, 0, 0,
		4, 0, 4, 0, 0xff, 0xff, 0xff, 0xff, 0x10, 0, 4, 0, 0xff, 0xff, 0xff, 0xff, 0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff}
	if err := unix.Setxattr(f.disk("b.txt"), "system.posix_acl_access", acl, 0); err != nil {
		t.Fatal(err)
	}
	os.Chmod(f.disk("c.txt"), 0o600)
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	os.Chtimes(f.disk("c.txt"), old, old)
	os.Chmod(f.disk("d"), 0o700)
	f.save()
	for p, ino := range inos {
		if inode(t, f.inFolder(p)) != ino {
			t.Errorf("%s was rewritten for a change of metadata", p)
		}
	}
	buf := make([]byte, 256)
	if n, err := unix.Getxattr(f.inFolder("a.txt"), "user.new", buf); err != nil || string(buf[:n]) != "came" {
		t.Errorf("user.new: %q, %v", buf[:max(n, 0)], err)
	}
	if _, err := unix.Getxattr(f.inFolder("a.txt"), "user.old", buf); err == nil {
		t.Error("user.old, removed on the disk, is still in the folder")
	}
	if n, err := unix.Getxattr(f.inFolder("b.txt"), "system.posix_acl_access", buf); err != nil || string(buf[:n]) != string(acl) {
		t.Errorf("the ACL: %x, %v", buf[:max(n, 0)], err)
	}
	fi, _ := os.Stat(f.inFolder("c.txt"))
	if fi.Mode() != 0o600 || !fi.ModTime().Equal(old) {
		t.Errorf("c.txt: mode %v time %v, want 600 and %v", fi.Mode(), fi.ModTime(), old)
	}
	if fi, _ := os.Stat(f.inFolder("d")); fi.Mode().Perm() != 0o700 {
		t.Errorf("d: mode %v", fi.Mode())
	}
}

// A sparse file keeps its holes through the load and the write-back: 1 GiB
// with 8 KiB of data takes a few blocks on the disk and in the folder.
func TestMirrorSparseFilesKeepHoles(t *testing.T) {
	f := newMirrorFill(t, func(folder string) {
		p := filepath.Join(folder, "sparse.img")
		fd, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		fd.Truncate(1 << 30)
		fd.WriteAt([]byte(strings.Repeat("data", 1024)), 1<<29)
		fd.Close()
	})
	blocks := func(p string) int64 {
		var st unix.Stat_t
		unix.Lstat(p, &st)
		return st.Blocks * 512
	}
	if b := blocks(f.disk("sparse.img")); b > 1<<20 {
		t.Fatalf("the load filled the holes: %d bytes on the disk", b)
	}
	fd, err := os.OpenFile(f.disk("sparse.img"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fd.WriteAt([]byte("more"), 3<<28)
	fd.Close()
	f.save()
	if b := blocks(f.inFolder("sparse.img")); b > 1<<20 {
		t.Errorf("the write-back filled the holes: %d bytes in the folder", b)
	}
	got, _ := os.ReadFile(f.inFolder("sparse.img"))
	if len(got) != 1<<30 || string(got[3<<28:3<<28+4]) != "more" || string(got[1<<29:1<<29+4]) != "data" {
		t.Error("the folder's sparse file is not the disk's")
	}
}

// A write-back through more folders than it keeps open at once (changed
// folders, and new ones made whole under temporary names, two deep) ends
// with the folder the disk's tree.
func TestMirrorManyFolders(t *testing.T) {
	const folders = 256 + 150 // a write-back keeps 256 folders open at most
	f := newMirrorFill(t, func(folder string) {
		for i := 0; i < folders; i++ {
			write(t, folder, "old/d"+strconv.Itoa(i)+"/f", "v1")
		}
	})
	for i := 0; i < folders; i++ {
		write(t, f.v.MountPoint, "old/d"+strconv.Itoa(i)+"/f", "v2")
		write(t, f.v.MountPoint, "new/n"+strconv.Itoa(i%40)+"/m"+strconv.Itoa(i)+"/g", "new")
	}
	f.save()
	want, got := digest(t, f.v.MountPoint), digest(t, f.folder)
	delete(want, ".")
	delete(got, ".")
	sameTree(t, want, got)
	f.noLeftovers()
}
