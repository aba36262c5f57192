package disks

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"rambar/cache"
	"rambar/keeper"
	"rambar/ramdisk"
)

// mirrorDisk makes a Mirror disk of name mirroring a new folder with one
// file, on the fixture's engine.
func (f *cacheFixture) mirrorDisk(t *testing.T, name string) (ramdisk.Volume, string) {
	t.Helper()
	folder := filepath.Join(t.TempDir(), "site")
	os.MkdirAll(folder, 0o755)
	os.WriteFile(filepath.Join(folder, "index.html"), []byte("site"), 0o644)
	c, err := f.s.Create(context.Background(), CreateRequest{Input: ramdisk.Input{Name: name, Size: "16M"},
		Contents: keeper.Options{Mode: ramdisk.Mirror, MirrorPath: folder}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.s.Eject(context.Background(), c.Volume, EjectOptions{Force: true}) })
	return c.Volume, folder
}

// noCacheState: RAMBar keeps no record, link or folder of any cache.
func (f *cacheFixture) noCacheState(t *testing.T, when string) {
	t.Helper()
	for _, d := range []string{"caches", "cache-links", "cache-empty", "cache-saved"} {
		if ents, _ := os.ReadDir(filepath.Join(f.s.Paths.Data, d)); len(ents) != 0 {
			t.Errorf("%s: %s holds %v", when, d, ents)
		}
	}
}

// TestCachesKeptOutOfMirrors: 'cache on' refuses a Mirror disk, a target
// inside a mirrored folder and one holding it, each in one line saying
// why, with nothing changed; a disk that had a cache and is made again as
// a Mirror disk gets no Caches folder (its target stays on its empty
// folder, and says so), and 'cache off' then puts the target back.
func TestCachesKeptOutOfMirrors(t *testing.T) {
	ctx := context.Background()
	f := newCacheFixture(t)
	v, folder := f.mirrorDisk(t, "Site")
	_, err := f.s.Caches().On(ctx, "Site", cache.Target{Path: f.target}, false)
	if !errors.Is(err, cache.ErrRefused) || !strings.Contains(err.Error(), "mirrors "+folder) || strings.Contains(err.Error(), "\n") {
		t.Errorf("cache on a Mirror disk: %v", err)
	}
	f.mount(t)
	inside := filepath.Join(folder, "node_modules")
	os.MkdirAll(inside, 0o755)
	for _, target := range []string{inside, filepath.Dir(folder)} {
		_, err := f.s.Caches().On(ctx, "Cache", cache.Target{Path: target}, false)
		if !errors.Is(err, cache.ErrRefused) || !strings.Contains(err.Error(), "RAMBar mirrors") {
			t.Errorf("cache on %s: %v, want refused as a mirrored folder", target, err)
		}
	}
	f.noCacheState(t, "after the refusals")
	if ents, _ := os.ReadDir(v.MountPoint); len(ents) != 1 {
		t.Errorf("the Mirror disk holds %v", ents)
	}
	sameTree(t, "target after the refusals", contentsOf(t, f.target), f.before)

	// A cache on Cache; Cache made again as a Mirror disk.
	if _, err := f.s.Caches().On(ctx, "Cache", cache.Target{Path: f.target}, false); err != nil {
		t.Fatal(err)
	}
	cv, _ := f.s.Find(ctx, "Cache")
	if _, err := f.s.Eject(ctx, cv, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	folder2 := filepath.Join(t.TempDir(), "docs")
	os.MkdirAll(folder2, 0o755)
	c, err := f.s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Cache", Size: "16M"},
		Contents: keeper.Options{Mode: ramdisk.Mirror, MirrorPath: folder2}})
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(c.Volume.MountPoint); len(ents) != 0 {
		t.Errorf("the Mirror disk made again holds %v: caches were pointed at it", ents)
	}
	said := false
	for _, n := range c.Volume.Notes {
		said = said || strings.Contains(n.Text, "stays on its empty folder")
	}
	if !said {
		t.Errorf("notes %q: want the cache said to stay off", c.Volume.Notes)
	}
	if real := resolvesToFolder(t, "on a Mirror disk's name", f.target); strings.HasPrefix(real, c.Volume.MountPoint) {
		t.Errorf("the target leads onto the Mirror disk: %s", real)
	}
	if err := f.s.Caches().Off(ctx, f.target); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "off", contentsOf(t, f.target), f.before)
	if _, err := f.s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(folder2); len(ents) != 0 {
		t.Errorf("the mirrored folder got %v", ents)
	}
	f.noCacheState(t, "finally")
}

// TestCacheOffAfterAMirrorSetTheLinkAside: an older RAMBar let a target
// inside a mirrored folder be switched, and its write-back set RAMBar's
// link aside as a conflict copy and put the disk's folder in its place:
// 'off' finds the link, keeps that folder beside the target (and says
// where), and puts the old contents back.
func TestCacheOffAfterAMirrorSetTheLinkAside(t *testing.T) {
	ctx := context.Background()
	f := newCacheFixture(t)
	f.mount(t)
	if _, err := f.s.Caches().On(ctx, "Cache", cache.Target{Path: f.target}, false); err != nil {
		t.Fatal(err)
	}
	aside := f.target + ".rambar-conflict-20261201-100000"
	if err := os.Rename(f.target, aside); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(f.target, 0o755)
	os.WriteFile(filepath.Join(f.target, "token"), []byte("written back"), 0o600)
	told, err := f.s.Caches().OffTold(ctx, f.target)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(told, f.target+".rambar-cache-copy-") {
		t.Errorf("told %q, want where the written-back folder is kept", told)
	}
	sameTree(t, "off", contentsOf(t, f.target), f.before)
	absent(t, aside)
	ents, _ := os.ReadDir(filepath.Dir(f.target))
	if len(ents) != 2 {
		t.Errorf("beside the target: %v, want the kept copy only", ents)
	}
	f.noCacheState(t, "after off")
}

func absent(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is there (%v)", p, err)
	}
}

// TestCacheOnKilledThenEject: a kill -9 of 'cache on' at each of its steps,
// and the next command is a plain eject: it finishes or undoes the step,
// and once the cache is off nothing of it is left: no record, link or
// folder in the data folder, no mount-point folder, the target as before.
func TestCacheOnKilledThenEject(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, step := range []string{"recorded", "pointed", "link made", "exchanged", "saved"} {
		t.Run(step, func(t *testing.T) {
			f := newCacheFixture(t)
			v := f.mount(t)
			root := filepath.Dir(v.MountPoint)
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "DISKS_CHILD=cache-on", "DISKS_NAME=Cache", "DISKS_ROOT="+root,
				"DISKS_DATA="+f.s.Paths.Data, "DISKS_TARGET="+f.target, "DISKS_KILL="+step, "HOME="+f.home)
			cmd.Stdin = strings.NewReader("")
			out, _ := cmd.CombinedOutput()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("child was not killed at %q: %v %s", step, cmd.ProcessState, out)
			}
			if _, err := f.s.Eject(ctx, v, EjectOptions{}); err != nil {
				t.Fatalf("the next command, eject: %v", err)
			}
			resolvesToFolder(t, "after the eject", f.target)
			if state, on := f.s.Caches().StateOf(f.target); on {
				if state != cache.StateOn {
					t.Errorf("the eject left the record %s", state)
				}
				if err := f.s.Caches().Off(ctx, f.target); err != nil {
					t.Fatalf("off: %v", err)
				}
			}
			sameTree(t, "finally", contentsOf(t, f.target), f.before)
			f.noCacheState(t, "finally")
			// The mount point's folder stays while a cache is on (targets
			// lead through it); once off it holds nothing of RAMBar's.
			if ents, _ := os.ReadDir(root); len(ents) > 1 || len(ents) == 1 && ents[0].Name() != "Cache" {
				t.Errorf("left in the mount root: %v", ents)
			}
			if ents, _ := os.ReadDir(v.MountPoint); len(ents) != 0 {
				t.Errorf("left in the mount point: %v", ents)
			}
			if ents, _ := os.ReadDir(filepath.Dir(f.target)); len(ents) != 1 {
				t.Errorf("left beside the target: %v", ents)
			}
		})
	}
}

// TestMountPointPlainEjectLeavesNoLink: a disk made at a folder of the
// user's and ejected without a cache ever on it leaves the folder as it
// was: no Caches link to RAMBar's data folder in it.
func TestMountPointPlainEjectLeavesNoLink(t *testing.T) {
	ctx := context.Background()
	f := newCacheFixture(t)
	dir := filepath.Join(f.home, "scratch")
	os.MkdirAll(dir, 0o755)
	c, err := f.s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Here", Size: "16M", Options: ramdisk.VolumeOptions{MountPoint: dir}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Errorf("the user's folder after a plain eject: %v %v, want it empty as before", ents, err)
	}
	f.noCacheState(t, "after the eject")
}
