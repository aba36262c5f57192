package disks

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rambar/cache"
	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"
	"rambar/tree"
	"rambar/volicon"
)

// assertFolders checks that every folder is a real folder under root.
func assertFolders(t *testing.T, when, root string, folders []string) {
	t.Helper()
	for _, f := range folders {
		st, err := os.Lstat(filepath.Join(root, f))
		if err != nil || !st.IsDir() {
			t.Errorf("%s: folder %s: %v", when, f, err)
		}
	}
}

// TestFoldersAtMountAndRestore: a kept disk's folders are made when it is
// mounted, again when it is made anew from a saved copy that lacks one, and
// again after a restore onto the mounted disk.
func TestFoldersAtMountAndRestore(t *testing.T) {
	root := realRoot(t)
	s := &Service{Engine: linux.New(run.System(), linux.WithMountRoot(root)), Paths: ramdiskPaths(t)}
	ctx := context.Background()
	folders := []string{"incoming", "build/cache", "Ünïcode dir/x"}
	in := ramdisk.Input{Name: "Work", Size: "16M", Options: ramdisk.VolumeOptions{Folders: folders}}
	c, err := s.Create(ctx, CreateRequest{Input: in, Contents: keeper.Options{Mode: ramdisk.Keep}})
	if err != nil {
		t.Fatal(err)
	}
	assertFolders(t, "after mount", c.Volume.MountPoint, folders)
	// The saved copy lacks build/ (removed before the save) but holds a file.
	os.RemoveAll(filepath.Join(c.Volume.MountPoint, "build"))
	os.WriteFile(filepath.Join(c.Volume.MountPoint, "incoming", "a.txt"), []byte("kept"), 0o600)
	if _, err := s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	c, err = s.Create(ctx, CreateRequest{Input: in, Contents: keeper.Options{Mode: ramdisk.Keep}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Eject(ctx, c.Volume, EjectOptions{Force: true, NoSave: true}) })
	assertFolders(t, "after a kept restore", c.Volume.MountPoint, folders)
	if b, _ := os.ReadFile(filepath.Join(c.Volume.MountPoint, "incoming", "a.txt")); string(b) != "kept" {
		t.Errorf("restored file = %q", b)
	}
	// A restore onto the mounted disk (rambar restore) makes them again too.
	os.RemoveAll(filepath.Join(c.Volume.MountPoint, "build"))
	if _, err := s.Restore(ctx, c.Volume, RestoreOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	assertFolders(t, "after restore", c.Volume.MountPoint, folders)
}

// TestMakeFoldersNeverFollowsLinks: a link on the disk where a folder's part
// should be is not followed: nothing is made outside, and the error names it.
func TestMakeFoldersNeverFollowsLinks(t *testing.T) {
	disk, outside := t.TempDir(), t.TempDir()
	os.Symlink(outside, filepath.Join(disk, "a"))
	os.WriteFile(filepath.Join(disk, "f"), nil, 0o600)
	err := keeper.MakeFolders(disk, []string{"a/b", "f/g", "ok/x"})
	if err == nil || !strings.Contains(err.Error(), "folder a/b not made") || !strings.Contains(err.Error(), "folder f/g not made") ||
		!strings.Contains(err.Error(), "a is a link or a file") {
		t.Errorf("makeFolders: %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("made outside the disk: %v", ents)
	}
	assertFolders(t, "good one", disk, []string{"ok/x"})
	if err := keeper.MakeFolders(disk, []string{"../escape"}); err == nil {
		t.Error("../escape accepted")
	}
}

// TestVolumeIconOnDisk: a disk made with --icon FILE.png holds
// .VolumeIcon.icns (converted: the icns magic) and a note that only
// Finder shows it.
func TestVolumeIconOnDisk(t *testing.T) {
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	pngPath := filepath.Join(dir, "icon.png")
	os.WriteFile(pngPath, b.Bytes(), 0o600)

	root := realRoot(t)
	s := &Service{Engine: linux.New(run.System(), linux.WithMountRoot(root)), Paths: ramdiskPaths(t)}
	ctx := context.Background()
	c, err := s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Pretty", Size: "16M", Options: ramdisk.VolumeOptions{Icon: pngPath}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Eject(ctx, c.Volume, EjectOptions{Force: true}) })
	got, err := os.ReadFile(filepath.Join(c.Volume.MountPoint, volicon.FileName))
	if err != nil || !bytes.HasPrefix(got, []byte("icns")) {
		t.Fatalf("%s: %d bytes, %v", volicon.FileName, len(got), err)
	}
	if n := strings.Join(ramdisk.Texts(c.Volume.Notes), "; "); !strings.Contains(n, "only macOS's Finder shows it") {
		t.Errorf("notes %q: want the Linux note", n)
	}
}

// TestReclaimKeepsOptions: a disk made again by Reclaim is noexec again, at
// its own folder again, with its files.
func TestReclaimKeepsOptions(t *testing.T) {
	root := realRoot(t)
	s := &Service{Engine: linux.New(run.System(), linux.WithMountRoot(root)), Paths: ramdiskPaths(t)}
	ctx := context.Background()
	mp := filepath.Join(t.TempDir(), "mine")
	t.Cleanup(func() { unmountAll(t, filepath.Dir(mp)) })
	in := ramdisk.Input{Name: "Again", Size: "16M", Options: ramdisk.VolumeOptions{NoExec: true, MountPoint: mp}}
	c, err := s.Create(ctx, CreateRequest{Input: in})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Eject(ctx, c.Volume, EjectOptions{Force: true}) })
	os.WriteFile(filepath.Join(mp, "f"), []byte("kept"), 0o600)
	if _, err := s.Reclaim(ctx, c.Volume, ReclaimOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	v, err := s.Find(ctx, "Again")
	if err != nil || v.MountPoint != mp {
		t.Fatalf("after reclaim: %+v, %v", v, err)
	}
	if b, _ := os.ReadFile(filepath.Join(mp, "f")); string(b) != "kept" {
		t.Errorf("file after reclaim: %q", b)
	}
	mi, _ := os.ReadFile("/proc/self/mountinfo")
	found := false
	for _, line := range strings.Split(string(mi), "\n") {
		if f := strings.Fields(line); len(f) > 5 && tree.UnescapeOctal(f[4]) == mp {
			found = true
			if !strings.Contains(","+f[5]+",", ",noexec,") {
				t.Errorf("after reclaim mounted %q, want noexec", f[5])
			}
		}
	}
	if !found {
		t.Errorf("%s not mounted after reclaim", mp)
	}
}

// TestStoppedReclaimResumedAsItWas: the reclaim of a noexec disk at its own
// folder, with a cache on it, is killed once the disk is ejected. While it is
// stopped the cache resolves to its empty folder; ResumeReclaim makes the
// disk again noexec at its folder with its files, and the cache is on it again.
func TestStoppedReclaimResumedAsItWas(t *testing.T) {
	root, paths := realRoot(t), ramdiskPaths(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	target := filepath.Join(home, ".cache", "go-build")
	os.MkdirAll(target, 0o750)
	s := &Service{Engine: linux.New(run.System(), linux.WithMountRoot(root)), Paths: paths}
	ctx := context.Background()
	mp := filepath.Join(t.TempDir(), "mine")
	t.Cleanup(func() { unmountAll(t, filepath.Dir(mp)) })
	in := ramdisk.Input{Name: "Again", Size: "16M", Options: ramdisk.VolumeOptions{NoExec: true, MountPoint: mp}}
	c, err := s.Create(ctx, CreateRequest{Input: in})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if v, err := s.Find(ctx, "Again"); err == nil {
			s.Eject(ctx, v, EjectOptions{Force: true})
		}
		s.Caches().Off(ctx, target)
	})
	if _, err := s.Caches().On(ctx, "Again", cache.Target{Key: "t", Label: "test", Path: target}, false); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(target, "built"), []byte("object"), 0o600)
	os.WriteFile(filepath.Join(mp, "f"), []byte("kept"), 0o600)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "DISKS_CHILD=reclaim", "DISKS_NAME=Again", "DISKS_KILL_AT=create", "DISKS_ROOT="+root, "DISKS_DATA="+paths.Data)
	if out, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != -1 {
		t.Fatalf("the reclaiming child was not killed: %s", out)
	}
	if _, err := s.Find(ctx, c.Volume.Name); err == nil {
		t.Fatal("the disk is still mounted: the child was killed too early")
	}
	if real := resolvesToFolder(t, "stopped", target); strings.HasPrefix(real, mp+"/") {
		t.Errorf("while stopped the cache resolves to %s, on the gone disk's folder", real)
	}
	how, v, err := s.ResumeReclaim(ctx, "Again", nil)
	if err != nil || how != keeper.ResumeFinished || v.MountPoint != mp {
		t.Fatalf("resume: %s, %+v, %v; want finished at %s", how, v, err, mp)
	}
	if b, _ := os.ReadFile(filepath.Join(mp, "f")); string(b) != "kept" {
		t.Errorf("file after resume: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(target, "built")); string(b) != "object" {
		t.Errorf("cache file after resume: %q", b)
	}
	if real := resolvesToFolder(t, "resumed", target); !strings.HasPrefix(real, mp+"/") {
		t.Errorf("after resume the cache resolves to %s, not onto the disk at %s", real, mp)
	}
	mi, _ := os.ReadFile("/proc/self/mountinfo")
	found := false
	for _, line := range strings.Split(string(mi), "\n") {
		if f := strings.Fields(line); len(f) > 5 && tree.UnescapeOctal(f[4]) == mp {
			found = true
			if !strings.Contains(","+f[5]+",", ",noexec,") {
				t.Errorf("after resume mounted %q, want noexec", f[5])
			}
		}
	}
	if !found {
		t.Errorf("%s not mounted after resume", mp)
	}
}
