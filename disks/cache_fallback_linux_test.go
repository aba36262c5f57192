package disks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"rambar/cache"
	"rambar/ramdisk"
)

// ordinaryFolder checks that target resolves to an existing, empty folder
// on an ordinary file system (not a tmpfs, not the gone disk), and that a
// file can be written into it.
func ordinaryFolder(t *testing.T, when, target, gone string) string {
	t.Helper()
	st, err := os.Stat(target) // follows every link
	if err != nil || !st.IsDir() {
		t.Fatalf("%s: %s does not resolve to a folder: %v", when, target, err)
	}
	real := resolvesToFolder(t, when, target)
	if strings.HasPrefix(real, gone+"/") {
		t.Errorf("%s: %s resolves to %s, on the gone disk", when, target, real)
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(target, &fs); err != nil || fs.Type == unix.TMPFS_MAGIC {
		t.Errorf("%s: %s is on a tmpfs (type %#x, %v), want an ordinary file system", when, target, fs.Type, err)
	}
	if ents, err := os.ReadDir(target); err != nil || len(ents) != 0 {
		t.Errorf("%s: %s is not an empty folder: %v %v", when, target, ents, err)
	}
	if err := os.WriteFile(filepath.Join(target, "written while away"), []byte("x"), 0o600); err != nil {
		t.Errorf("%s: cannot write into %s: %v", when, target, err)
	}
	return real
}

// ordinaryData puts the fixture's data folder on a file system that is not
// a tmpfs (/var/tmp), so what its fallbacks resolve to can be told from
// the RAM disk by file system type.
func ordinaryData(t *testing.T, f *cacheFixture) {
	d, err := os.MkdirTemp("/var/tmp", "rambar-cache-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	f.s.Paths.Data = filepath.Join(d, "data")
}

// TestCacheFallsBackWithoutRAMBar: the disk goes without RAMBar (umount,
// umount -l, a reboot: nothing of RAMBar runs), and the target still
// resolves to an ordinary, empty folder that takes writes. Mounted again
// through RAMBar, the target is the disk's folder again, and what was
// written while it was away is gone from the fallback.
func TestCacheFallsBackWithoutRAMBar(t *testing.T) {
	for _, tt := range []struct {
		name   string
		flags  int
		reboot bool
	}{
		{"umount", 0, false},
		{"umount -l", unix.MNT_DETACH, false},
		{"reboot", unix.MNT_DETACH, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newCacheFixture(t)
			ordinaryData(t, f)
			ctx := context.Background()
			v := f.mount(t)
			if _, err := f.s.Caches().On(ctx, "Cache", cache.Target{Path: f.target}, false); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(f.target, "new"), []byte("in RAM"), 0o600)
			if b, err := os.ReadFile(filepath.Join(v.MountPoint, "Caches", cache.ID(f.target)) + "/new"); err != nil || string(b) != "in RAM" {
				t.Fatalf("the write did not land on the disk: %q %v", b, err)
			}
			if err := unix.Unmount(v.MountPoint, tt.flags); err != nil {
				t.Fatal(err)
			}
			if tt.reboot {
				// What a reboot would make stale: RAMBar's locks and its note of
				// how the disk was mounted. Nothing of RAMBar runs after.
				os.RemoveAll(filepath.Join(f.s.Paths.Data, "locks"))
				os.RemoveAll(filepath.Join(f.s.Paths.Data, "cache-mounts"))
			}
			real := ordinaryFolder(t, "disk gone without RAMBar", f.target, v.MountPoint)
			if !strings.HasPrefix(real, f.s.Paths.Data+"/") {
				t.Errorf("disk gone: target resolves to %s, want RAMBar's fallback in %s", real, f.s.Paths.Data)
			}
			v = f.mount(t)
			if real := resolvesToFolder(t, "mounted again", f.target); !strings.HasPrefix(real, v.MountPoint+"/") {
				t.Errorf("mounted again: target resolves to %s, not onto the disk %s", real, v.MountPoint)
			}
			if ents, _ := os.ReadDir(f.target); len(ents) != 0 {
				t.Errorf("mounted again: the disk's folder holds %v", ents)
			}
			fallback := f.s.Caches().Fallback("Cache", f.target)
			if ents, err := os.ReadDir(fallback); err != nil || len(ents) != 0 {
				t.Errorf("mounted again: what was written while away is still in %s: %v %v", fallback, ents, err)
			}
			if err := unix.Unmount(v.MountPoint, 0); err != nil {
				t.Fatal(err)
			}
			ordinaryFolder(t, "gone again", f.target, v.MountPoint)
			v = f.mount(t)
			if err := f.s.Caches().Off(ctx, f.target); err != nil {
				t.Fatal(err)
			}
			sameTree(t, "off", contentsOf(t, f.target), f.before)
		})
	}
}

// TestCacheOffLetsTheMountPointGo: while a cache is on the disk, its mount
// point folder stays at eject (it holds the fallback link); once none is,
// eject removes it as before.
func TestCacheOffLetsTheMountPointGo(t *testing.T) {
	f := newCacheFixture(t)
	ctx := context.Background()
	v := f.mount(t)
	if _, err := f.s.Caches().On(ctx, "Cache", cache.Target{Path: f.target}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Eject(ctx, v, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(v.MountPoint, ramdisk.FallbackLink)
	if dest, err := os.Readlink(link); err != nil || dest != f.s.Caches().FallbackRoot("Cache") {
		t.Fatalf("ejected with a cache on: %s -> %q (%v), want the fallback link", link, dest, err)
	}
	v = f.mount(t)
	if err := f.s.Caches().Off(ctx, f.target); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Eject(ctx, v, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(v.MountPoint); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ejected with no cache on: %s is still there (%v)", v.MountPoint, err)
	}
	sameTree(t, "off", contentsOf(t, f.target), f.before)
}

// TestCacheMountPointRefusals: the mount point folder of a disk with a
// cache on it, left below by an eject, may hold only RAMBar's link. Any
// other entry, a folder in the link's place, or a link of another user's
// (planted: never followed) makes the next mount refuse, and nothing there
// or behind it changes. The refused mount re-checks the way there: the
// target is pointed straight at its fallback, an ordinary empty folder.
func TestCacheMountPointRefusals(t *testing.T) {
	for _, tt := range []struct {
		name  string
		plant func(t *testing.T, mp, victim string)
	}{
		{"a file beside the link", func(t *testing.T, mp, _ string) {
			os.WriteFile(filepath.Join(mp, "stray"), []byte("mine"), 0o600)
		}},
		{"a folder for the link", func(t *testing.T, mp, _ string) {
			os.Remove(filepath.Join(mp, ramdisk.FallbackLink))
			os.Mkdir(filepath.Join(mp, ramdisk.FallbackLink), 0o700)
		}},
		{"another user's link", func(t *testing.T, mp, victim string) {
			link := filepath.Join(mp, ramdisk.FallbackLink)
			os.Remove(link)
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(link, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newCacheFixture(t)
			ordinaryData(t, f)
			ctx := context.Background()
			v := f.mount(t)
			if _, err := f.s.Caches().On(ctx, "Cache", cache.Target{Path: f.target}, false); err != nil {
				t.Fatal(err)
			}
			if _, err := f.s.Eject(ctx, v, EjectOptions{}); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(t.TempDir(), "victim")
			os.Mkdir(victim, 0o755)
			os.Chown(victim, 65534, 65534)
			tt.plant(t, v.MountPoint, victim)
			before := contentsOf(t, v.MountPoint)
			_, err := f.s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Cache", Size: "16M"}})
			if !errors.Is(err, ramdisk.ErrExists) || !strings.Contains(err.Error(), "not empty") {
				t.Errorf("create over %s: %v; want refused as not empty", tt.name, err)
			}
			if _, err := f.s.Find(ctx, "Cache"); err == nil {
				t.Errorf("the disk was mounted over %s", tt.name)
			}
			sameTree(t, "mount point", contentsOf(t, v.MountPoint), before)
			var st syscall.Stat_t
			if ents, _ := os.ReadDir(victim); len(ents) != 0 || syscall.Stat(victim, &st) != nil || st.Uid != 65534 {
				t.Errorf("the planted link was followed: %s holds %v, owner %d", victim, ents, st.Uid)
			}
			ordinaryFolder(t, "refused", f.target, v.MountPoint)
		})
	}
}

// TestCacheOnRefusedWithoutFallback: a RAM disk mounted without RAMBar's
// fallback link below it (by hand here; an older RAMBar) takes no new
// target: a crash would leave it dangling. The reason and the fix are one
// line, and the target is untouched.
func TestCacheOnRefusedWithoutFallback(t *testing.T) {
	f := newCacheFixture(t)
	ctx := context.Background()
	mp := filepath.Join(filepath.Dir(f.mountPoint2(t)), "Hand")
	os.MkdirAll(mp, 0o700)
	if err := syscall.Mount("rambar", mp, "tmpfs", 0, "size=4m,mode=0700"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Unmount(mp, syscall.MNT_DETACH) })
	_, err := f.s.Caches().On(ctx, "Hand", cache.Target{Path: f.target}, false)
	if !errors.Is(err, cache.ErrRefused) || !strings.Contains(err.Error(), "dangling") || !strings.Contains(err.Error(), "rambar create Hand") || strings.Contains(err.Error(), "\n") {
		t.Errorf("cache on a disk mounted by hand: %v; want one line refusing it, with the fix", err)
	}
	sameTree(t, "target", contentsOf(t, f.target), f.before)
	if cs := f.s.Caches().List(ctx); len(cs) != 0 {
		t.Errorf("caches after the refusal: %+v", cs)
	}
}

// mountPoint2 is where the fixture's disks are mounted: ROOT/Cache.
func (f *cacheFixture) mountPoint2(t *testing.T) string {
	t.Helper()
	return filepath.Join(f.s.Engine.Caps().MountRoot, "Cache")
}
