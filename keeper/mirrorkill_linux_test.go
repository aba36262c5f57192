//go:build linux

package keeper

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// killFolder writes the folder the kill test starts from, the same every
// time (contents, modes, times, xattrs, flags): files in folders, large
// files, symlinks, hard links, a FIFO, setuid, nodump files, an immutable
// file the disk leaves and one it deletes, a folder the disk turns into a
// file and a file it turns into a folder.
func killFolder(t *testing.T, root string) {
	t.Helper()
	r := rand.New(rand.NewSource(3))
	at := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	put := func(rel, data string) {
		write(t, root, rel, data)
		at = at.Add(time.Second)
		os.Chtimes(filepath.Join(root, rel), at, at)
	}
	for i := 0; i < 500; i++ {
		put(fmt.Sprintf("d%d/s%d/f%d", i%6, i%11, i), strings.Repeat(string(rune('a'+i%26)), r.Intn(6000)))
		p := filepath.Join(root, fmt.Sprintf("d%d/s%d/f%d", i%6, i%11, i))
		if i%7 == 0 {
			unix.Setxattr(p, "user.tag", []byte(fmt.Sprint("tag ", i)), 0)
		}
		if i%50 == 0 {
			setFlags(t, p, fsNodump)
		}
	}
	for i := 0; i < 4; i++ {
		put(fmt.Sprintf("large/l%d", i), strings.Repeat(string(rune('A'+i)), 3<<20))
	}
	for i := 0; i < 10; i++ {
		put(fmt.Sprintf("hl/a%d", i), fmt.Sprint("linked ", i))
		os.Link(filepath.Join(root, fmt.Sprintf("hl/a%d", i)), filepath.Join(root, fmt.Sprintf("hl/b%d", i)))
	}
	os.MkdirAll(filepath.Join(root, "links"), 0o755)
	ts := []unix.Timespec{unix.NsecToTimespec(at.UnixNano()), unix.NsecToTimespec(at.UnixNano())}
	for i := 0; i < 10; i++ {
		p := filepath.Join(root, fmt.Sprintf("links/l%d", i))
		os.Symlink(fmt.Sprintf("../d0/s0/f%d", i*66), p)
		unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW)
	}
	unix.Mkfifo(filepath.Join(root, "pipe"), 0o640)
	os.Chtimes(filepath.Join(root, "pipe"), at, at)
	put("bin/tool", "#!/bin/sh\n")
	os.Chmod(filepath.Join(root, "bin/tool"), 0o755|os.ModeSetuid)
	put("kind/dirtofile/x", "x")
	put("kind/filetodir", "a file")
	put("locked.txt", "locked")
	put("ro.txt", "read only")
	setFlags(t, filepath.Join(root, "locked.txt"), fsImmutable)
	setFlags(t, filepath.Join(root, "ro.txt"), fsImmutable)
}

// killChanges is what the disk does before the save the test kills.
func killChanges(t *testing.T, disk string) (metaOnly map[string]bool) {
	t.Helper()
	r := rand.New(rand.NewSource(4))
	metaOnly = map[string]bool{}
	for i := 0; i < 500; i++ {
		rel := fmt.Sprintf("d%d/s%d/f%d", i%6, i%11, i)
		p := filepath.Join(disk, rel)
		switch i % 9 {
		case 0, 1, 2:
			write(t, disk, rel, strings.Repeat("z", r.Intn(9000)))
		case 3:
			os.Remove(p)
		case 4:
			os.Chmod(p, 0o600)
			metaOnly[rel] = true
		case 5:
			old := time.Date(2001, 1, 1, 0, 0, i, 0, time.UTC)
			os.Chtimes(p, old, old)
			metaOnly[rel] = true
		case 6:
			unix.Setxattr(p, "user.added", []byte("on the disk"), 0)
			unix.Removexattr(p, "user.tag")
			metaOnly[rel] = true
		}
	}
	for i := 0; i < 120; i++ {
		write(t, disk, fmt.Sprintf("new/n%d/m%d", i%9, i), strings.Repeat("n", r.Intn(5000)))
	}
	write(t, disk, "large/l1", strings.Repeat("Z", 3<<20))
	write(t, disk, "large/l3", strings.Repeat("Y", 2<<20))
	for i := 0; i < 5; i++ {
		write(t, disk, fmt.Sprintf("hl/a%d", i), fmt.Sprint("linked, edited ", i)) // both names
	}
	os.Link(filepath.Join(disk, "hl/a7"), filepath.Join(disk, "hl/c7"))
	for i := 0; i < 3; i++ {
		os.Remove(filepath.Join(disk, fmt.Sprintf("links/l%d", i)))
		os.Symlink("../new", filepath.Join(disk, fmt.Sprintf("links/l%d", i)))
	}
	os.RemoveAll(filepath.Join(disk, "kind/dirtofile"))
	write(t, disk, "kind/dirtofile", "now a file")
	os.Remove(filepath.Join(disk, "kind/filetodir"))
	write(t, disk, "kind/filetodir/inside", "now a folder")
	os.Remove(filepath.Join(disk, "locked.txt"))
	return metaOnly
}

const fsNodump = 0x40

// clearFolder removes a folder the kill test made, flags first.
func clearFolder(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK, 0); err == nil {
				unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, 0)
				unix.Close(fd)
			}
		}
		return nil
	})
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
}

// TestMirrorWriteBackSurvivesKill9 kills a write-back (a child process
// whose save finds the snapshot made and the folder behind) at random
// moments, at least 40 times, on a tree of files, folders, large files,
// symlinks, hard links, xattrs, flags and kind changes. After each kill
// every path of the folder is its old or its new version (a path whose
// metadata alone changed holds its bytes; its metadata is set in place
// and may be part set), with at worst temporary names beside; the next
// save finishes: the folder is the disk's tree (and the immutable files
// as they were), hard links are links, flags kept, no temporary name left.
func TestMirrorWriteBackSurvivesKill9(t *testing.T) {
	base := tmpfsAt(t, "", "512m")
	folder := filepath.Join(base, "site")
	killFolder(t, folder)
	t.Cleanup(func() { clearFolder(t, folder) })
	oldTree := digest(t, folder)
	data, pristine := filepath.Join(base, "data"), filepath.Join(base, "pristine")
	k := NewKeeper(pristine)
	k.IsMounted = func(string) bool { return true }
	if _, err := k.Setup("Site", Options{Mode: ramdisk.Mirror, MirrorPath: folder}); err != nil {
		t.Fatal(err)
	}
	disk := tmpfsAt(t, filepath.Join(base, "disk"), "256m")
	v := ramdisk.Volume{Name: "Site", MountPoint: disk}
	if _, err := k.Load(context.Background(), v, nil); err != nil {
		t.Fatal(err)
	}
	metaOnly := killChanges(t, disk)
	st, _ := k.State("Site")
	// The snapshot is made; the folder is behind: what a child's save does
	// is the write-back alone.
	if _, err := k.store(st).Save(context.Background(), disk, st.ID, st.Snapshots, nil, nil); err != nil {
		t.Fatal(err)
	}
	newTree := digest(t, disk)
	want := digest(t, disk)
	want["locked.txt"] = oldTree["locked.txt"] // immutable: kept
	fresh := func() {
		os.RemoveAll(data)
		linkCopy(t, pristine, data)
		clearFolder(t, folder)
		killFolder(t, folder)
	}
	run := func() time.Duration {
		fresh()
		start := time.Now()
		if err := safeChild(t, os.Args[0], "writeback", data, disk, "", nil).Wait(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	runs := []time.Duration{run(), run(), run()}
	sort.Slice(runs, func(i, j int) bool { return runs[i] < runs[j] })
	spread := runs[1] * 12 / 10
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	seen := map[string]int{}
	for i := 0; i < 40 || (seen["partly written"] == 0 && i < 120); i++ {
		fresh()
		c := safeChild(t, os.Args[0], "writeback", data, disk, "", nil)
		time.Sleep(time.Duration(r.Int63n(int64(spread))))
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()
		got := digest(t, folder)
		if bad := oldOrNewBut(oldTree, newTree, got, metaOnly); len(bad) > 0 {
			t.Fatalf("kill %d: paths neither old nor new: %v", i, bad)
		}
		seen[killOutcome(oldTree, want, got)]++
		kk := NewKeeper(data)
		kk.IsMounted = func(string) bool { return true }
		if _, err := kk.Save(context.Background(), v, SaveOptions{}); err != nil {
			t.Fatalf("kill %d: the save after: %v", i, err)
		}
		// (Folders' times left out: the folder is made anew each round, and
		// a folder the disk did not change keeps the folder's time.)
		sameTree(t, timelessDirs(want), timelessDirs(digest(t, folder)))
		noTemps(t, folder)
		for j := 0; j < 10; j++ {
			if inode(t, filepath.Join(folder, fmt.Sprintf("hl/a%d", j))) != inode(t, filepath.Join(folder, fmt.Sprintf("hl/b%d", j))) {
				t.Errorf("kill %d: hl/a%d and hl/b%d are not one file", i, j, j)
			}
		}
		if inode(t, filepath.Join(folder, "hl/a7")) != inode(t, filepath.Join(folder, "hl/c7")) {
			t.Errorf("kill %d: the new link hl/c7 is not one file with hl/a7", i)
		}
		for _, p := range []string{"locked.txt", "ro.txt"} {
			if getFlags(t, filepath.Join(folder, p))&fsImmutable == 0 {
				t.Errorf("kill %d: %s lost its flag", i, p)
			}
		}
		if getFlags(t, filepath.Join(folder, "d0/s0/f0"))&fsNodump == 0 {
			t.Errorf("kill %d: a rewritten file lost nodump", i)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("a write-back takes %v; after the kills: %v", runs[1], seen)
	if seen["partly written"] == 0 {
		t.Error("no kill landed halfway through the renames")
	}
}

// oldOrNewBut is oldOrNew where the paths in metaOnly (changed in
// metadata alone) are compared by content only.
func oldOrNewBut(old, new, got tree.Digest, metaOnly map[string]bool) []string {
	strip := func(d tree.Digest) tree.Digest {
		out := make(tree.Digest, len(d))
		for p, l := range d {
			if metaOnly[p] {
				f := strings.SplitN(l, " ", 7)
				l = f[0] + " " + f[3] + " " + f[4] + " " + f[6]
			}
			out[p] = l
		}
		return out
	}
	return oldOrNew(strip(old), strip(new), strip(got))
}

// killOutcome says where a kill left the folder.
func killOutcome(old, want, got tree.Digest) string {
	temps := false
	for p := range got {
		if isTempPath(p) {
			temps = true
			delete(got, p)
		}
	}
	old, want, got = timelessDirs(old), timelessDirs(want), timelessDirs(got)
	switch {
	case len(old.Diff(got, 1)) == 0 && temps:
		return "old, with temporary files"
	case len(old.Diff(got, 1)) == 0:
		return "old"
	case len(want.Diff(got, 1)) == 0 && temps:
		return "new, with temporary files"
	case len(want.Diff(got, 1)) == 0:
		return "new"
	}
	return "partly written"
}

// timelessDirs is d with its folders' times left out.
func timelessDirs(d tree.Digest) tree.Digest {
	out := make(tree.Digest, len(d))
	for p, l := range d {
		out[p] = timeless(l)
	}
	return out
}
