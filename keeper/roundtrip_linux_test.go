//go:build linux

package keeper

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// year2400 is a time that nanoseconds in an int64 cannot hold.
var year2400 = time.Date(2400, 3, 4, 5, 6, 7, 123456789, time.UTC)

// everyKind writes one of every kind of thing a file system holds under
// root: files with owners, odd modes, atime apart from mtime, a year-2400
// mtime, xattrs of every namespace root may use, POSIX ACLs (setfacl), a
// hard-linked file with three names, a 1 GiB sparse file holding 4 KiB, a
// 1 GiB file that is all hole, a
// FIFO, symlinks with owners, a user-made lost+found, and a socket and a
// device node (which cannot be kept). It returns the paths that must be
// named as not kept.
func everyKind(t *testing.T, root string) []string {
	t.Helper()
	p := func(rel string) string { return filepath.Join(root, rel) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	write(t, root, "plain", "plain contents\n")
	write(t, root, "dir/owned", "owned by someone else\n")
	must(os.Chown(p("dir/owned"), 1234, 5678))
	must(os.Chmod(p("dir/owned"), 0o4750))
	write(t, root, "links/one", "three names, one file\n")
	must(os.Link(p("links/one"), p("links/two")))
	must(os.Link(p("links/one"), p("three")))
	f, err := os.Create(p("sparse"))
	must(err)
	_, err = f.WriteAt([]byte(strings.Repeat("s", 4096)), 512<<20)
	must(err)
	must(f.Truncate(1 << 30))
	must(f.Close())
	must(os.WriteFile(p("allhole"), nil, 0o600))
	must(os.Truncate(p("allhole"), 1<<30))
	must(unix.Mkfifo(p("dir/fifo"), 0o620))
	must(os.Chown(p("dir/fifo"), 42, 43))
	must(os.Symlink("owned", p("dir/link")))
	must(os.Lchown(p("dir/link"), 1234, 5678))
	if !isMkfsLostFound(root) {
		write(t, root, "lost+found/mine", "made by the user\n")
	}
	for name, val := range map[string]string{"user.tag": "u", "trusted.rambar": "t", "security.rambar": "s"} {
		must(unix.Setxattr(p("plain"), name, []byte(val), 0))
	}
	must(unix.Setxattr(p("dir"), "trusted.dir", []byte{0, 1, 2}, 0))
	for _, args := range [][]string{{"-m", "u:1234:rw,g:5678:r", p("plain")}, {"-d", "-m", "u:1234:rwx", p("dir")}} {
		if out, err := exec.Command("setfacl", args...).CombinedOutput(); err != nil {
			t.Fatalf("setfacl %v: %v %s (apt-get install acl)", args, err, out)
		}
	}
	l, err := net.Listen("unix", p("dir/sock"))
	must(err)
	t.Cleanup(func() { l.Close() })
	must(unix.Mknod(p("null"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))))
	old := time.Date(2001, 2, 3, 4, 5, 6, 789000000, time.UTC)
	for _, rel := range []string{"plain", "dir/owned", "links/one", "sparse", "dir/fifo", "lost+found/mine"} {
		if _, err := os.Lstat(p(rel)); err == nil {
			must(os.Chtimes(p(rel), old, old.Add(time.Hour)))
		}
	}
	must(unix.UtimesNanoAt(unix.AT_FDCWD, p("plain"), []unix.Timespec{unix.NsecToTimespec(old.UnixNano()),
		{Sec: year2400.Unix(), Nsec: int64(year2400.Nanosecond())}}, 0))
	ts := []unix.Timespec{unix.NsecToTimespec(old.UnixNano()), unix.NsecToTimespec(old.Add(time.Minute).UnixNano())}
	must(unix.UtimesNanoAt(unix.AT_FDCWD, p("dir/link"), ts, unix.AT_SYMLINK_NOFOLLOW))
	for _, rel := range []string{"dir", "links", "lost+found"} {
		if !strings.HasPrefix(rel, "lost+found") || !isMkfsLostFound(root) {
			must(os.Chtimes(p(rel), old, old.Add(2*time.Hour)))
		}
	}
	return []string{"dir/sock", "null"}
}

// fullMeta describes every path under root by lstat and xattrs alone (the
// paths listed by scan, which reads folders with O_NOATIME; no file is
// read, so no access time moves): kind, mode, owner, size (not of
// folders: a socket left out makes one smaller), times, links (by the
// first path of each inode), xattrs with values.
func fullMeta(t *testing.T, root string) map[string]string {
	t.Helper()
	items, err := tree.Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	first := map[uint64]string{}
	for _, it := range items[1:] {
		p := filepath.Join(root, it.Rel)
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		link := ""
		if st.Nlink > 1 && st.Mode&unix.S_IFMT == unix.S_IFREG {
			if f, ok := first[st.Ino]; ok {
				link = "=" + f
			} else {
				first[st.Ino] = it.Rel
			}
		}
		size := st.Size
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			size = 0
		}
		out[it.Rel] = fmt.Sprintf("mode %o owner %d:%d size %d nlink %d%s atime %d.%09d mtime %d.%09d xattrs %s",
			st.Mode, st.Uid, st.Gid, size, st.Nlink, link, st.Atim.Sec, st.Atim.Nsec, st.Mtim.Sec, st.Mtim.Nsec, xattrLine(t, p))
	}
	return out
}

// isMkfsLostFound: root's lost+found is ext4's own (inode 11).
func isMkfsLostFound(root string) bool {
	var st unix.Stat_t
	var fs unix.Statfs_t
	return unix.Lstat(filepath.Join(root, "lost+found"), &st) == nil && st.Ino == 11 &&
		unix.Statfs(root, &fs) == nil && fs.Type == unix.EXT4_SUPER_MAGIC
}

func xattrLine(t *testing.T, p string) string {
	names, err := tree.ListXattrs(p)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		v, _, err := tree.GetXattr(p, n)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, fmt.Sprintf("%s=%x", n, v))
	}
	return strings.Join(parts, ",")
}

// TestEveryKindOfFileRoundTrips saves a tree of every kind of file from a
// real tmpfs (and a real zram ext4 disk) and restores it onto a new one:
// content, mode, owner, atime and mtime (the year 2400 included), hard
// links, xattrs and ACLs come back; the sparse file stays sparse in the
// store and on the disk; the socket and the device node are named in the
// save's result.
func TestEveryKindOfFileRoundTrips(t *testing.T) {
	for _, fs := range []struct {
		name  string
		mount func(t *testing.T) string
	}{
		{"tmpfs", func(t *testing.T) string { return mountTmpfs(t, "64m") }},
		{"zram", func(t *testing.T) string { return mountZRAM(t, 64<<20) }},
	} {
		t.Run(fs.name, func(t *testing.T) {
			roundTripEveryKind(t, fs.mount)
		})
	}
}

func roundTripEveryKind(t *testing.T, mount func(t *testing.T) string) {
	ctx := context.Background()
	k := NewKeeper(t.TempDir())
	k.IsMounted = func(string) bool { return true }
	st, err := k.Setup("Kinds", Options{Mode: ramdisk.Keep})
	if err != nil {
		t.Fatal(err)
	}
	v := ramdisk.Volume{Name: "Kinds", MountPoint: mount(t)}
	if _, err := k.Load(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	notKept := everyKind(t, v.MountPoint)
	wantMeta := fullMeta(t, v.MountPoint)
	wantACL := getfacl(t, v.MountPoint, "plain", "dir")
	res, err := k.Save(ctx, v, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := digest(t, v.MountPoint) // after the save: reading moves atimes
	m, err := k.store(st).Manifest(res.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	saved := map[string]bool{}
	for _, e := range m.Entries {
		saved[e.Path] = true
	}
	if mkfs := isMkfsLostFound(v.MountPoint); saved["lost+found"] == mkfs {
		t.Errorf("lost+found saved: %v; made by mkfs: %v (only the user's is contents)", saved["lost+found"], mkfs)
	}
	var named []string
	for _, n := range res.NotKept {
		named = append(named, n.Path)
	}
	if strings.Join(named, ",") != strings.Join(notKept, ",") {
		t.Errorf("the save named %v as not kept, want %v", res.NotKept, notKept)
	}
	if used := storeBytes(t, st.Backing); used > 1<<20+64<<10 {
		t.Errorf("the store takes %d bytes for a 1 GiB sparse file of 4 KiB and a few small files, want at most 1 MiB", used)
	}
	back := ramdisk.Volume{Name: "Kinds", MountPoint: mount(t)}
	if _, err := k.Load(ctx, back, nil); err != nil {
		t.Fatal(err)
	}
	gotMeta := fullMeta(t, back.MountPoint)
	for p, w := range wantMeta {
		if gotMeta[p] != w {
			t.Errorf("%s:\n want %s\n  got %s", p, w, gotMeta[p])
		}
	}
	for p := range gotMeta {
		if _, ok := wantMeta[p]; !ok {
			t.Errorf("%s: restored, but was not there", p)
		}
	}
	if got := getfacl(t, back.MountPoint, "plain", "dir"); got != wantACL {
		t.Errorf("ACLs:\n want %s\n  got %s", wantACL, got)
	}
	var sp unix.Stat_t
	if err := unix.Stat(filepath.Join(back.MountPoint, "sparse"), &sp); err != nil || sp.Blocks*512 > 1<<20 {
		t.Errorf("the restored sparse file takes %d bytes of the disk (%v), want at most 1 MiB", sp.Blocks*512, err)
	}
	var pl unix.Stat_t
	if err := unix.Stat(filepath.Join(back.MountPoint, "plain"), &pl); err != nil || time.Unix(pl.Mtim.Unix()).UTC().Year() != 2400 {
		t.Errorf("mtime of the year 2400 came back as %v (%v)", time.Unix(pl.Mtim.Unix()).UTC(), err)
	}
	for _, p := range notKept {
		delete(want, p)
	}
	sameTree(t, want, digest(t, back.MountPoint))
}

// getfacl prints the ACLs of paths under root.
func getfacl(t *testing.T, root string, paths ...string) string {
	t.Helper()
	cmd := exec.Command("getfacl", append([]string{"-p"}, paths...)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("getfacl: %v %s", err, out)
	}
	return string(out)
}

// storeBytes is what a store takes on its disk.
func storeBytes(t *testing.T, dir string) int64 {
	var n int64
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Sys().(*syscall.Stat_t).Blocks * 512
		}
		return nil
	})
	return n
}

// mountZRAM makes a zram disk of size bytes with ext4 on it, as the Linux
// engine does (mkfs.ext4, so its root has mkfs's lost+found), and mounts it
// for the test.
func mountZRAM(t *testing.T, size int64) string {
	t.Helper()
	b, err := os.ReadFile("/sys/class/zram-control/hot_add")
	if err != nil {
		t.Fatalf("zram (tests run as root with the zram module): %v", err)
	}
	n := strings.TrimSpace(string(b))
	dev := "/dev/zram" + n
	t.Cleanup(func() {
		os.WriteFile("/sys/block/zram"+n+"/reset", []byte("1"), 0)
		os.WriteFile("/sys/class/zram-control/hot_remove", []byte(n), 0)
	})
	if err := os.WriteFile("/sys/block/zram"+n+"/disksize", []byte(strconv.FormatInt(size, 10)), 0); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", "-m", "0", "-E", "lazy_itable_init=0,lazy_journal_init=0", dev).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v %s", err, out)
	}
	dir := t.TempDir()
	if err := unix.Mount(dev, dir, "ext4", 0, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// TestSmallSparseFilesInPacksRoundTrip: small sparse files are packed with
// the other small files (their data only), a large file between them is an
// object of its own, and every packed file's range starts where the one
// before it in its pack ended; the tree restores whole.
func TestSmallSparseFilesInPacksRoundTrip(t *testing.T) {
	ctx := context.Background()
	k, st, v := keptDisk(t, t.TempDir(), "Packs", mountTmpfs(t, "64m"))
	sparse := func(name string, size, at int64) {
		f, err := os.Create(filepath.Join(v.MountPoint, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.Truncate(size)
		if _, err := f.WriteAt([]byte(strings.Repeat(name, 1024)), at); err != nil {
			t.Fatal(err)
		}
	}
	write(t, v.MountPoint, "a", strings.Repeat("a", 100))
	sparse("b", 60<<10, 32<<10)
	write(t, v.MountPoint, "c", strings.Repeat("c", 1000))
	write(t, v.MountPoint, "large", strings.Repeat("L", 100<<10))
	sparse("s", 64<<10, 0)
	write(t, v.MountPoint, "z", "z")
	want := digest(t, v.MountPoint)
	res, err := k.Save(ctx, v, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := k.store(st).Manifest(res.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	var end int64
	for _, e := range m.Entries {
		switch {
		case e.Kind != tree.KindFile:
		case e.Path == "large":
			if e.Obj.Packed {
				t.Errorf("large: packed %v", e.Obj)
			}
		case !e.Obj.Packed || e.Obj.Off != end:
			t.Errorf("%s: object %v, want packed at %d", e.Path, e.Obj, end)
		default:
			if (e.Path == "b" || e.Path == "s") != (e.Extents != nil) {
				t.Errorf("%s: extents %v", e.Path, e.Extents)
			}
			end = e.Obj.Off + e.Stored()
		}
	}
	back := ramdisk.Volume{Name: "Packs", MountPoint: mountTmpfs(t, "64m")}
	if _, err := k.Load(ctx, back, nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, want, digest(t, back.MountPoint))
}
