package disks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"
)

// tmpfsFolder mounts a real tmpfs (POSIX ACLs on, as tmpfs has them by
// default) and returns a folder on it.
func tmpfsFolder(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts tmpfs: run it as root (CI does)")
	}
	mnt := filepath.Join(t.TempDir(), "fs")
	os.Mkdir(mnt, 0o755)
	if err := syscall.Mount("rambar-test", mnt, "tmpfs", 0, "size=64m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	return filepath.Join(mnt, "photos")
}

// TestMirrorEjectCarriesACL: on a Mirror disk, an ACL set with setfacl, an
// xattr added, an xattr removed and a time set (each on its own file)
// reach the folder at eject. A folder whose file system refuses ACLs
// (exFAT through FUSE) gets the rest, and the eject names the ACL it could
// not carry in one line with its file: nothing is dropped silently.
func TestMirrorEjectCarriesACL(t *testing.T) {
	for _, c := range []struct {
		name   string
		folder func(*testing.T) string
		acls   bool // the folder's file system keeps POSIX ACLs and xattrs
	}{
		{"tmpfs", tmpfsFolder, true},
		{"exFAT", exfatFolder, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			folder := c.folder(t)
			if err := os.MkdirAll(folder, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, n := range []string{"a.txt", "b.txt", "c.jpg", "d.txt"} {
				write(t, filepath.Join(folder, n), "contents of "+n)
			}
			if c.acls {
				if err := unix.Setxattr(filepath.Join(folder, "b.txt"), "user.gone", []byte("old"), 0); err != nil {
					t.Fatal(err)
				}
			}
			base := t.TempDir()
			root := filepath.Join(base, "mnt")
			t.Cleanup(func() { unmountAll(t, root) })
			s := &Service{Engine: linux.New(run.System(), linux.WithMountRoot(root)), Paths: ramdisk.Paths{Data: filepath.Join(base, "data")}}
			ctx := context.Background()
			cr, err := s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Photos", Size: "64M"},
				Contents: keeper.Options{Mode: ramdisk.Mirror, MirrorPath: folder}})
			if err != nil {
				t.Fatal(err)
			}
			disk := cr.Volume.MountPoint
			if out, err := exec.Command("setfacl", "-m", "u:65534:r", filepath.Join(disk, "c.jpg")).CombinedOutput(); err != nil {
				t.Fatalf("setfacl: %v %s (apt-get install acl)", err, out)
			}
			if err := unix.Setxattr(filepath.Join(disk, "a.txt"), "user.new", []byte("came"), 0); err != nil {
				t.Fatal(err)
			}
			if c.acls {
				if err := unix.Removexattr(filepath.Join(disk, "b.txt"), "user.gone"); err != nil {
					t.Fatal(err)
				}
			}
			old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
			if err := os.Chtimes(filepath.Join(disk, "d.txt"), old, old); err != nil {
				t.Fatal(err)
			}
			ej, err := s.Eject(ctx, cr.Volume, EjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var notKept []string
			if ej.Saved != nil && ej.Saved.Folder != nil {
				notKept = ej.Saved.Folder.NotKept
			}
			if fi, err := os.Stat(filepath.Join(folder, "d.txt")); err != nil || !fi.ModTime().Equal(old) {
				t.Errorf("d.txt: the time set on the disk did not arrive: %v", err)
			}
			if !c.acls {
				var named []string
				for _, n := range notKept {
					if strings.Contains(n, "system.posix_acl_access") {
						named = append(named, n)
					}
				}
				if len(named) != 1 || !strings.Contains(named[0], "c.jpg") || strings.Contains(named[0], "\n") {
					t.Errorf("the eject names the ACL it could not carry as %q (all: %q), want one line naming c.jpg", named, notKept)
				}
				return
			}
			if len(notKept) != 0 {
				t.Errorf("not kept: %q", notKept)
			}
			out, err := exec.Command("getfacl", "-c", "-n", filepath.Join(folder, "c.jpg")).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "user:65534:r--") {
				t.Errorf("the ACL did not arrive: getfacl: %v\n%s", err, out)
			}
			buf := make([]byte, 64)
			if n, err := unix.Getxattr(filepath.Join(folder, "a.txt"), "user.new", buf); err != nil || string(buf[:n]) != "came" {
				t.Errorf("a.txt: user.new did not arrive: %q %v", buf[:max(n, 0)], err)
			}
			if _, err := unix.Getxattr(filepath.Join(folder, "b.txt"), "user.gone", buf); err == nil {
				t.Error("b.txt: user.gone, removed on the disk, is still in the folder")
			}
		})
	}
}
