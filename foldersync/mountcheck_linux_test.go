//go:build linux

package foldersync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// tmpfs mounts a tmpfs at a new folder (tests run as root); cleanup
// unmounts it.
func tmpfs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("rambar-test", dir, "tmpfs", 0, "size=16m,mode=0755"); err != nil {
		t.Skipf("mount tmpfs (tests run as root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// longMountPoint is a folder holding a file, with a tmpfs mounted on it,
// whose path is longer than a path may be (PATH_MAX): reached folder by
// folder, as the Mirror code opens every folder, but never by its path.
func longMountPoint(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	site := filepath.Join(base, "m", "site")
	os.MkdirAll(site, 0o755)
	if err := unix.Mount("rambar-test", site, "tmpfs", 0, "size=16m,mode=0755"); err != nil {
		t.Skipf("mount tmpfs (tests run as root): %v", err)
	}
	os.WriteFile(filepath.Join(site, "a.txt"), []byte("on the mount"), 0o644)
	basefd, err := unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("d", 200)
	fd, _ := unix.Dup(basefd)
	for i := 0; i < 22; i++ {
		unix.Mkdirat(fd, name, 0o755)
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		unix.Close(fd)
		fd = next
	}
	if err := unix.Renameat(basefd, "m", fd, "m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		unix.Renameat(fd, "m", basefd, "m")
		unix.Unmount(site, unix.MNT_DETACH)
		unix.Close(fd)
		unix.Close(basefd)
	})
	long := base + strings.Repeat("/"+name, 22) + "/m/site"
	if len(long) <= unix.PathMax {
		t.Fatalf("the path is %d bytes, not more than PATH_MAX", len(long))
	}
	return long
}

// A folder that is a mount point is never loaded, even when its path
// cannot be looked at (too long to stat): the check is made on the
// folder's descriptor and its parent's, as the write-back makes it.
func TestLoadRefusesAMountPointByItsDescriptors(t *testing.T) {
	folder := longMountPoint(t)
	disk := tmpfs(t)
	l := &FolderLoad{Folder: folder, Disk: disk}
	err := l.Run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "mount point") {
		t.Errorf("a load from a mount point: %v, want it refused", err)
	}
	if _, err := os.Lstat(filepath.Join(disk, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the load copied the mount's a.txt onto the disk (%v)", err)
	}
}
