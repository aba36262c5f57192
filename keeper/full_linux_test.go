//go:build linux

package keeper

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

func TestRestoreIntoTooSmallDiskWritesNothing(t *testing.T) {
	f := newFixture(t)
	_, v := f.kept("Small")
	write(t, v.MountPoint, "big", strings.Repeat("b", 3<<20))
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	small := mountTmpfs(t, "1m")
	_, err := f.k.Restore(f.ctx, ramdisk.Volume{Name: "Small", MountPoint: small}, RestoreOptions{})
	if !errors.Is(err, ramdisk.ErrNoSpace) {
		t.Fatalf("restore into 1 MiB: %v, want ErrNoSpace", err)
	}
	ents, _ := os.ReadDir(small)
	for _, e := range ents {
		if e.Name() != tree.MarkerName {
			t.Errorf("restore wrote %s before refusing", e.Name())
		}
	}
}

// mountTmpfs mounts a tmpfs of the given size for the test (root only).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	return mountFS(t, "tmpfs", "size="+size+",mode=0755")
}

// keptDisk sets up disk name kept (Keep) in the data folder data, as
// mounted at the empty folder mnt, loaded.
func keptDisk(t *testing.T, data, name, mnt string) (*Keeper, State, ramdisk.Volume) {
	t.Helper()
	k := NewKeeper(data)
	k.IsMounted = func(string) bool { return true }
	st, err := k.Setup(name, Options{Mode: ramdisk.Keep})
	if err != nil {
		t.Fatal(err)
	}
	v := ramdisk.Volume{Name: name, MountPoint: mnt}
	if _, err := k.Load(context.Background(), v, nil); err != nil {
		t.Fatal(err)
	}
	return k, st, v
}

// mountFS mounts a file system of type fstype with options opts on a new
// folder for the test (root only), unmounted at its end.
func mountFS(t *testing.T, fstype, opts string) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("rambar-test", dir, fstype, 0, opts); err != nil {
		t.Fatalf("mount %s (tests run as root): %v", fstype, err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

func TestSaveToFullDestinationKeepsOldState(t *testing.T) {
	root := t.TempDir()
	data := mountTmpfs(t, "2m")
	k := NewKeeper(data)
	k.IsMounted = func(string) bool { return true }
	st, err := k.Setup("Full", Options{Mode: ramdisk.Keep})
	if err != nil {
		t.Fatal(err)
	}
	v := ramdisk.Volume{Name: "Full", MountPoint: filepath.Join(root, "vol")}
	os.MkdirAll(v.MountPoint, 0o700)
	if _, err := k.Load(context.Background(), v, nil); err != nil {
		t.Fatal(err)
	}
	write(t, v.MountPoint, "small", "first state")
	if _, err := k.Save(context.Background(), v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	old := digest(t, v.MountPoint)
	write(t, v.MountPoint, "huge", strings.Repeat("h", 3<<20))
	write(t, v.MountPoint, "small", "second state")
	_, err = k.Save(context.Background(), v, SaveOptions{})
	if !errors.Is(err, ramdisk.ErrNoSpace) {
		t.Fatalf("save to a full destination: %v, want ErrNoSpace", err)
	}
	out := t.TempDir()
	if _, err := k.store(st).Restore(context.Background(), "", out, "", nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, old, digest(t, out))
	// The failed save left nothing behind: the space is free again.
	objs, _ := os.ReadDir(filepath.Join(st.Backing, "objects"))
	if len(objs) != 1 {
		t.Errorf("objects folders after a failed save: %d, want 1", len(objs))
	}
}

func TestReclaimRefusesRealHolderBeforeCopying(t *testing.T) {
	f, v, plan, _ := reclaimFixture(t)
	cmd := exec.Command("sleep", "30")
	cmd.Dir = v.MountPoint
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	_, err := f.k.Reclaim(f.ctx, f.eng, v, plan, nil, nil)
	if !errors.Is(err, ramdisk.ErrBusy) || !strings.Contains(err.Error(), "sleep (pid") {
		t.Fatalf("err = %v, want busy, held by sleep", err)
	}
	if _, err := os.Stat(filepath.Join(f.k.Data, "reclaim")); err == nil {
		t.Error("a staging folder was made for a busy disk")
	}
}

func mountForBench(dir string) error {
	return unix.Mount("rambar-bench", dir, "tmpfs", 0, "size=1g,mode=0755")
}

func unmountForBench(dir string) { unix.Unmount(dir, unix.MNT_DETACH) }
