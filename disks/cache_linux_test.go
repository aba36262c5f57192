package disks

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"rambar/cache"
	"rambar/internal/run"
	"rambar/linux"
	"rambar/ramdisk"
)

// childCache is the child's cache op: on or off of DISKS_TARGET on
// DISKS_NAME, killed with SIGKILL at step DISKS_KILL.
func childCache(ctx context.Context, s *Service, op string) error {
	if at := os.Getenv("DISKS_KILL"); at != "" {
		s.cacheStep = func(step string) {
			if step == at {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
	}
	t := cache.Target{Key: "t", Label: "test", Path: os.Getenv("DISKS_TARGET")}
	if op == "cache-on" {
		_, err := s.Caches().On(ctx, os.Getenv("DISKS_NAME"), t, false)
		return err
	}
	return s.Caches().Off(ctx, t.Path)
}

// contentsOf lists a folder's files and folders with their contents, for exact
// comparison ("" for folders).
func contentsOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			t.Errorf("walk %s: %v", p, err)
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "-> " + l
		case info.IsDir():
			out[rel] = "dir " + info.Mode().Perm().String()
		default:
			b, _ := os.ReadFile(p)
			out[rel] = info.Mode().Perm().String() + " " + string(b)
		}
		return nil
	})
	return out
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	var g, w []string
	for k, v := range got {
		g = append(g, k+"="+v)
	}
	for k, v := range want {
		w = append(w, k+"="+v)
	}
	sort.Strings(g)
	sort.Strings(w)
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, g, w)
	}
}

// resolvesToFolder checks the invariant: the target resolves to a folder
// that exists (never a dangling link). It returns where it resolves.
func resolvesToFolder(t *testing.T, when, target string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		t.Fatalf("%s: %s does not resolve: %v", when, target, err)
	}
	st, err := os.Lstat(real)
	if err != nil || !st.IsDir() {
		t.Fatalf("%s: %s resolves to %s, not a folder (%v)", when, target, real, err)
	}
	return real
}

type cacheFixture struct {
	s      *Service
	target string
	before map[string]string
	home   string
}

func newCacheFixture(t *testing.T) *cacheFixture {
	root := realRoot(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	target := filepath.Join(home, ".cache", "go-build")
	os.MkdirAll(filepath.Join(target, "ab"), 0o750)
	os.WriteFile(filepath.Join(target, "ab", "abc-d"), []byte("compiled"), 0o640)
	os.WriteFile(filepath.Join(target, "README"), []byte("This directory holds cached build artifacts"), 0o644)
	os.Symlink("README", filepath.Join(target, "link"))
	f := &cacheFixture{s: &Service{Engine: linux.New(run.System(), linux.WithMountRoot(root)), Paths: ramdiskPaths(t)}, target: target, home: home}
	f.before = contentsOf(t, target)
	return f
}

func (f *cacheFixture) mount(t *testing.T) ramdisk.Volume {
	t.Helper()
	c, err := f.s.Create(context.Background(), CreateRequest{Input: ramdisk.Input{Name: "Cache", Size: "16M"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.s.Eject(context.Background(), c.Volume, EjectOptions{Force: true}) })
	return c.Volume
}

// TestCacheOnEjectOff: on, writes land on the disk; ejected, the target is
// an ordinary empty folder; mounted again, the disk's again; off, the old
// contents are back exactly, and RAMBar's folders are gone.
func TestCacheOnEjectOff(t *testing.T) {
	f := newCacheFixture(t)
	ctx := context.Background()
	v := f.mount(t)
	tg := cache.Target{Key: "go", Label: "Go build cache", Path: f.target}
	st, err := f.s.Caches().On(ctx, "Cache", tg, false)
	if err != nil {
		t.Fatal(err)
	}
	if !st.OnDisk || st.Saved == "" {
		t.Errorf("state %+v", st)
	}
	real := resolvesToFolder(t, "on", f.target)
	if !strings.HasPrefix(real, v.MountPoint+"/") {
		t.Errorf("target resolves to %s, not onto the disk %s", real, v.MountPoint)
	}
	os.WriteFile(filepath.Join(f.target, "new"), []byte("in RAM"), 0o600)
	if b, err := os.ReadFile(filepath.Join(v.MountPoint, "Caches", cache.ID(f.target), "new")); err != nil || string(b) != "in RAM" {
		t.Errorf("the write did not land on the disk: %q %v", b, err)
	}
	if _, err := f.s.Eject(ctx, v, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	real = resolvesToFolder(t, "ejected", f.target)
	if strings.HasPrefix(real, v.MountPoint) || !strings.HasPrefix(real, f.s.Paths.Data+"/") {
		t.Errorf("ejected: target resolves to %s", real)
	}
	if ents, _ := os.ReadDir(f.target); len(ents) != 0 {
		t.Errorf("ejected: fallback is not empty: %v", ents)
	}
	os.WriteFile(filepath.Join(f.target, "while away"), []byte("x"), 0o600) // an app writes while the disk is away
	v = f.mount(t)
	if real := resolvesToFolder(t, "mounted again", f.target); !strings.HasPrefix(real, v.MountPoint+"/") {
		t.Errorf("mounted again: target resolves to %s", real)
	}
	if _, err := f.s.Eject(ctx, v, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(f.target); len(ents) != 0 {
		t.Errorf("ejected again: the fallback was not emptied: %v", ents)
	}
	v = f.mount(t)
	if err := f.s.Caches().Off(ctx, f.target); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(f.target); err != nil || !st.IsDir() {
		t.Fatalf("off: target is not a plain folder: %v", err)
	}
	sameTree(t, "off: contents", contentsOf(t, f.target), f.before)
	for _, d := range []string{"caches", "cache-links", "cache-empty", "cache-saved"} {
		if ents, _ := os.ReadDir(filepath.Join(f.s.Paths.Data, d)); len(ents) != 0 {
			t.Errorf("off: %s still holds %v", d, ents)
		}
	}
	if ents, _ := os.ReadDir(filepath.Dir(f.target)); len(ents) != 1 {
		t.Errorf("off: something left beside the target: %v", ents)
	}
}

// TestCacheTargetThatDidNotExist: a target with no folder before is a link
// while on and gone again after off.
func TestCacheTargetThatDidNotExist(t *testing.T) {
	f := newCacheFixture(t)
	ctx := context.Background()
	f.mount(t)
	target := filepath.Join(f.home, ".npm")
	if _, err := f.s.Caches().On(ctx, "Cache", cache.Target{Path: target}, false); err != nil {
		t.Fatal(err)
	}
	resolvesToFolder(t, "on", target)
	if err := f.s.Caches().Off(ctx, target); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("off: %s is there (%v), it was not before", target, err)
	}
}

// TestCacheRefusals: folders the system needs to log in, links, files and
// system folders are refused with their reason; nothing changes.
func TestCacheRefusals(t *testing.T) {
	f := newCacheFixture(t)
	ctx := context.Background()
	v := f.mount(t)
	os.Symlink(f.target, filepath.Join(f.home, "linked"))
	os.WriteFile(filepath.Join(f.home, "file"), nil, 0o600)
	os.MkdirAll(filepath.Join(f.home, "Library", "Caches"), 0o700)
	for path, why := range map[string]string{
		f.home:                           "log you in",
		filepath.Join(f.home, "Library"): "log you in",
		filepath.Join(f.home, "Library", "Caches"): "log you in",
		filepath.Join(f.home, ".cache"):            "log you in",
		"/":                                        "log you in",
		"/usr/lib":                                 "system folder /usr",
		filepath.Join(f.home, "linked"):            "symbolic link already",
		filepath.Join(f.home, "file"):              "a file",
		filepath.Join(v.MountPoint, "x"):           "a RAM disk is mounted there",
		filepath.Join(f.s.Paths.Data, "x"):         "data folder",
		filepath.Join(f.home, "no", "parent"):      "parent folder does not exist",
	} {
		_, err := f.s.Caches().On(ctx, "Cache", cache.Target{Path: path}, false)
		if !errors.Is(err, cache.ErrRefused) || !strings.Contains(err.Error(), why) {
			t.Errorf("cache on %s: %v; want refused because %q", path, err, why)
		}
	}
	sameTree(t, "target untouched", contentsOf(t, f.target), f.before)
	if cs := f.s.Caches().List(ctx); len(cs) != 0 {
		t.Errorf("caches after refusals: %+v", cs)
	}
	// Forced, a login folder is allowed: the fallback keeps it safe.
	lc := filepath.Join(f.home, "Library", "Caches")
	if _, err := f.s.Caches().On(ctx, "Cache", cache.Target{Path: lc}, true); err != nil {
		t.Errorf("forced: %v", err)
	}
	resolvesToFolder(t, "forced", lc)
	if err := f.s.Caches().Off(ctx, lc); err != nil {
		t.Error(err)
	}
	// Not mounted: the disk must be there to switch a cache onto it.
	if _, err := f.s.Caches().On(ctx, "Nope", cache.Target{Path: f.target}, false); !errors.Is(err, ramdisk.ErrNotFound) {
		t.Errorf("onto a disk that is not mounted: %v", err)
	}
}

// TestCacheKilledBetweenSteps: a kill -9 at each step of on and of off
// never leaves the target dangling, and the next repair brings it to a
// whole state; off then gives the old contents back exactly.
func TestCacheKilledBetweenSteps(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tt := range []struct{ op, step string }{
		{"cache-on", "recorded"}, {"cache-on", "pointed"}, {"cache-on", "link made"}, {"cache-on", "exchanged"}, {"cache-on", "saved"},
		{"cache-off", "off recorded"}, {"cache-off", "back beside"}, {"cache-off", "exchanged back"}, {"cache-off", "link gone"},
	} {
		t.Run(tt.op+" "+tt.step, func(t *testing.T) {
			f := newCacheFixture(t)
			f.mount(t)
			if tt.op == "cache-off" {
				if _, err := f.s.Caches().On(ctx, "Cache", cache.Target{Path: f.target}, false); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "DISKS_CHILD="+tt.op, "DISKS_NAME=Cache", "DISKS_ROOT="+filepath.Dir(filepath.Dir(f.mountPoint(t))),
				"DISKS_DATA="+f.s.Paths.Data, "DISKS_TARGET="+f.target, "DISKS_KILL="+tt.step, "HOME="+f.home)
			cmd.Stdin = strings.NewReader("")
			out, _ := cmd.CombinedOutput()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("child was not killed at %q: %v %s", tt.step, cmd.ProcessState, out)
			}
			resolvesToFolder(t, "right after the kill", f.target)
			f.s.Caches().Repair(ctx)
			resolvesToFolder(t, "after repair", f.target)
			if _, on := f.s.Caches().StateOf(f.target); on {
				if err := f.s.Caches().Off(ctx, f.target); err != nil {
					t.Fatalf("off after repair: %v", err)
				}
			}
			if st, err := os.Lstat(f.target); err != nil || !st.IsDir() {
				t.Fatalf("finally: target is not a plain folder: %v", err)
			}
			sameTree(t, "finally", contentsOf(t, f.target), f.before)
			if ents, _ := os.ReadDir(filepath.Dir(f.target)); len(ents) != 1 {
				t.Errorf("left beside the target: %v", ents)
			}
		})
	}
}

// mountPoint is the test disk's mount point.
func (f *cacheFixture) mountPoint(t *testing.T) string {
	v, err := f.s.Find(context.Background(), "Cache")
	if err != nil {
		t.Fatal(err)
	}
	return v.MountPoint + "/x"
}

// TestCacheOnAnotherFileSystem: a target on another file system than
// RAMBar's data folder keeps its old contents beside it (a rename cannot
// cross), and off still gives them back exactly.
func TestCacheOnAnotherFileSystem(t *testing.T) {
	f := newCacheFixture(t)
	ctx := context.Background()
	f.mount(t)
	other := filepath.Join(t.TempDir(), "otherfs")
	os.Mkdir(other, 0o755)
	if err := syscall.Mount("test-other-fs", other, "tmpfs", 0, "size=4m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Unmount(other, syscall.MNT_DETACH) })
	target := filepath.Join(other, "cache")
	os.MkdirAll(filepath.Join(target, "x"), 0o755)
	os.WriteFile(filepath.Join(target, "x", "f"), []byte("far"), 0o600)
	before := contentsOf(t, target)
	st, err := f.s.Caches().On(ctx, "Cache", cache.Target{Path: target}, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Saved != target+".rambar-"+cache.ID(target) {
		t.Errorf("saved at %s, want beside the target", st.Saved)
	}
	resolvesToFolder(t, "on", target)
	if err := f.s.Caches().Off(ctx, target); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "off", contentsOf(t, target), before)
	if ents, _ := os.ReadDir(other); len(ents) != 1 {
		t.Errorf("left beside the target: %v", ents)
	}
}

// TestCacheBusyEjectPointsBack: an eject refused because the disk is busy
// leaves the cache on the disk, where its files still are.
func TestCacheBusyEjectPointsBack(t *testing.T) {
	f := newCacheFixture(t)
	ctx := context.Background()
	v := f.mount(t)
	if _, err := f.s.Caches().On(ctx, "Cache", cache.Target{Path: f.target}, false); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "300")
	cmd.Dir = v.MountPoint
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if _, err := f.s.Eject(ctx, v, EjectOptions{}); !errors.Is(err, ramdisk.ErrBusy) {
		t.Fatalf("eject of a busy disk: %v", err)
	}
	if real := resolvesToFolder(t, "after a refused eject", f.target); !strings.HasPrefix(real, v.MountPoint+"/") {
		t.Errorf("target resolves to %s, want the disk", real)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if err := f.s.Caches().Off(ctx, f.target); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "off", contentsOf(t, f.target), f.before)
}
