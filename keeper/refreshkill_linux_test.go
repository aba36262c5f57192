//go:build linux

package keeper

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/foldersync"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// refreshRound changes the folder the way a user's tools do, differently
// each round n: files edited (one large), added (a new folder of them, a
// non-UTF-8 name, a FIFO), deleted, a folder renamed, a hard link and a
// symlink made, a chmod, an xattr and a touch. It returns the paths whose
// metadata alone changed.
func refreshRound(t *testing.T, folder string, n int, r *rand.Rand) map[string]bool {
	t.Helper()
	for i := 0; i < 200; i++ {
		write(t, folder, fmt.Sprintf("ed/f%02d", i), strings.Repeat(fmt.Sprintf("round %d file %d ", n, i), 1+r.Intn(400)))
	}
	write(t, folder, "ed/big", strings.Repeat(fmt.Sprintf("big %d ", n), 1<<19))
	for i := 0; i < 300; i++ {
		write(t, folder, fmt.Sprintf("add%d/s%d/x%d", n, i%4, i), fmt.Sprintf("added %d %d", n, i))
	}
	write(t, folder, fmt.Sprintf("caf\xe9-%d", n), "latin-1")
	unix.Mkfifo(filepath.Join(folder, fmt.Sprintf("fifo%d", n)), 0o640)
	if n > 0 {
		os.RemoveAll(filepath.Join(folder, fmt.Sprintf("add%d", n-1)))
		os.Remove(filepath.Join(folder, fmt.Sprintf("caf\xe9-%d", n-1)))
	}
	if err := os.Rename(filepath.Join(folder, fmt.Sprintf("ren%d", n)), filepath.Join(folder, fmt.Sprintf("ren%d", n+1))); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(folder, "ed/f00"), filepath.Join(folder, fmt.Sprintf("hl%d", n))); err != nil {
		t.Fatal(err)
	}
	os.Symlink(fmt.Sprintf("ed/f%02d", n%200), filepath.Join(folder, fmt.Sprintf("sym%d", n)))
	os.Chmod(filepath.Join(folder, "meta/mode"), os.FileMode(0o600+n%2*0o55))
	unix.Setxattr(filepath.Join(folder, "meta/x"), "user.round", []byte(fmt.Sprint(n)), 0)
	ts := time.Unix(int64(1_000_000_000+n), 0)
	os.Chtimes(filepath.Join(folder, "meta/t"), ts, ts)
	return map[string]bool{"meta/mode": true, "meta/x": true, "meta/t": true, "ed/f00": true}
}

// withoutRefreshTemps is d without the refresh's temporary names (and
// what is in them).
func withoutRefreshTemps(d tree.Digest) tree.Digest {
	out := make(tree.Digest, len(d))
	for p, l := range d {
		temp := false
		for _, c := range strings.Split(p, "/") {
			temp = temp || strings.HasPrefix(c, foldersync.TempPrefix)
		}
		if !temp {
			out[p] = l
		}
	}
	return out
}

// noRefreshTemps: no refresh's temporary name anywhere under dir.
func noRefreshTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), foldersync.TempPrefix) {
			t.Errorf("a refresh's temporary name is left: %s", p)
		}
		return nil
	})
}

// kill -9 of a refresh at random moments, 24 rounds at least (more until
// one lands halfway), each after another
// round of changes in the folder: each path of the disk is its old
// version or the folder's (a path whose metadata alone changed holds its
// bytes), the folder is untouched, and the next refresh (or a save, then
// a refresh) finishes: the disk is the folder, hard links links, no
// temporary name left, nothing kept in the folder, nothing lost.
func TestRefreshSurvivesKill9(t *testing.T) {
	base := tmpfsAt(t, "", "256m")
	folder := filepath.Join(base, "site")
	for i := 0; i < 30; i++ {
		write(t, folder, fmt.Sprintf("ren0/r%d", i), fmt.Sprint("renamed ", i))
	}
	for _, p := range []string{"meta/mode", "meta/x", "meta/t", "ed/f00"} {
		write(t, folder, p, p)
	}
	k := NewKeeper(filepath.Join(base, "data"))
	k.IsMounted = func(string) bool { return true }
	if _, err := k.Setup("Site", Options{Mode: ramdisk.Mirror, MirrorPath: folder}); err != nil {
		t.Fatal(err)
	}
	disk := tmpfsAt(t, filepath.Join(base, "disk"), "128m")
	v := ramdisk.Volume{Name: "Site", MountPoint: disk}
	ctx := context.Background()
	if _, err := k.Load(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	refreshRound(t, folder, 0, r)
	start := time.Now()
	if err := safeChild(t, os.Args[0], "refresh", k.Data, disk, "", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	seen := map[string]int{}
	mid := 0 // kills that landed while the refresh made or placed new versions
	for n := 1; n <= 24 || mid == 0 && n <= 80; n++ {
		metaOnly := refreshRound(t, folder, n, r)
		oldDisk, newDisk := digest(t, disk), digest(t, folder)
		start := time.Now()
		c := safeChild(t, os.Args[0], "refresh", k.Data, disk, "", nil)
		time.Sleep(took/4 + time.Duration(r.Int63n(int64(took))))
		c.Process.Signal(syscall.SIGKILL)
		if c.Wait() == nil {
			took = time.Since(start) // it finished first: how long one takes now
		}
		raw := digest(t, disk)
		got := withoutRefreshTemps(raw)
		temps := ""
		if len(raw) != len(got) {
			temps = ", with temporary names"
		}
		if bad := oldOrNewBut(oldDisk, newDisk, got, metaOnly); len(bad) > 0 {
			t.Fatalf("kill %d: disk paths neither old nor new: %v", n, bad)
		}
		sameTree(t, timelessDirs(newDisk), timelessDirs(digest(t, folder)))
		switch {
		case len(timelessDirs(oldDisk).Diff(timelessDirs(got), 1)) == 0:
			seen["old"+temps]++
		case len(timelessDirs(newDisk).Diff(timelessDirs(got), 1)) == 0:
			seen["new"+temps]++
		default:
			seen["partly"+temps]++
		}
		mid = seen["old, with temporary names"] + seen["partly"] + seen["partly, with temporary names"]
		kk := NewKeeper(k.Data)
		kk.IsMounted = func(string) bool { return true }
		if n%2 == 0 {
			if _, err := kk.Save(ctx, v, SaveOptions{}); err != nil {
				t.Fatalf("kill %d: the save after: %v", n, err)
			}
			noRefreshTemps(t, folder)
		}
		res, err := kk.Refresh(ctx, v, nil)
		if err != nil {
			t.Fatalf("kill %d: the refresh after: %v", n, err)
		}
		if len(res.Conflicts()) > 0 || len(res.Left) > 0 {
			t.Errorf("kill %d: the refresh after: conflicts %v, left %v", n, res.Conflicts(), res.Left)
		}
		sameTree(t, timelessDirs(digest(t, folder)), timelessDirs(digest(t, disk)))
		noRefreshTemps(t, disk)
		noTemps(t, folder)
		noCopies(t, folder)
		if inode(t, filepath.Join(disk, fmt.Sprintf("hl%d", n))) != inode(t, filepath.Join(disk, "ed/f00")) {
			t.Errorf("kill %d: hl%d is not a link to ed/f00 on the disk", n, n)
		}
		if m, err := kk.FolderChanges(v); err != nil || m != 0 {
			t.Errorf("kill %d: %d changes kept in the folder (%v)", n, m, err)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("a refresh takes %v; after the kills: %v", took, seen)
	if mid == 0 {
		t.Error("no kill landed while the refresh made or placed the new versions")
	}
}

// Three refreshes and two saves of one disk at once, from separate
// processes, while the folder and the disk both keep changing: they take
// turns (the store's lock), every one finishes, and once the last is done
// a refresh leaves the disk the folder, nothing lost on either side.
func TestRefreshesAndSavesAtOnce(t *testing.T) {
	base := tmpfsAt(t, "", "128m")
	folder := filepath.Join(base, "site")
	for i := 0; i < 200; i++ {
		write(t, folder, fmt.Sprintf("f/%03d", i), fmt.Sprint("file ", i))
	}
	k := NewKeeper(filepath.Join(base, "data"))
	k.IsMounted = func(string) bool { return true }
	if _, err := k.Setup("Site", Options{Mode: ramdisk.Mirror, MirrorPath: folder}); err != nil {
		t.Fatal(err)
	}
	disk := tmpfsAt(t, filepath.Join(base, "disk"), "64m")
	v := ramdisk.Volume{Name: "Site", MountPoint: disk}
	ctx := context.Background()
	if _, err := k.Load(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		write(t, folder, fmt.Sprintf("f/%03d", i), fmt.Sprint("edited in the folder ", i))
		write(t, folder, fmt.Sprintf("new/%03d", i), fmt.Sprint("new in the folder ", i))
	}
	var cmds []*exec.Cmd
	for _, mode := range []string{"refresh", "save", "refresh", "save", "refresh"} {
		cmds = append(cmds, safeChild(t, os.Args[0], mode, k.Data, disk, "x", nil))
	}
	for i := 0; i < 20; i++ {
		write(t, disk, fmt.Sprintf("disk/%03d", i), fmt.Sprint("made on the disk ", i))
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	r, err := k.Refresh(ctx, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, timelessDirs(digest(t, folder)), timelessDirs(digest(t, disk)))
	got := digest(t, disk)
	for i := 0; i < 100; i++ {
		if got[fmt.Sprintf("new/%03d", i)] == "" || got[fmt.Sprintf("disk/%03d", i%20)] == "" {
			t.Fatalf("lost: new/%03d or disk/%03d (conflicts %v)", i, i%20, r.Conflicts())
		}
	}
	noRefreshTemps(t, disk)
	noCopies(t, folder)
}
