package darwin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"rambar/internal/run/runtest"
	"rambar/ramdisk"
)

// TestInPlaceOnTheFakeMac runs the macOS flow of a Mirror disk in place
// (disks drives it): the loaded volume is mounted over the folder
// (diskutil mount -mountPoint), so the folder's path shows the disk and
// the volume's mount point is the folder; a write-back uncovers the folder
// (the volume back at its own mount point, the folder showing what it
// holds), writes it, and covers it again; a shell in the folder keeps it
// covered and is named; the eject uncovers, then ejects. No hidden copy:
// HideFolder is unsupported.
func TestInPlaceOnTheFakeMac(t *testing.T) {
	for _, fs := range []ramdisk.FileSystem{ramdisk.APFS, ramdisk.HFSPlus} {
		f := newFakeMac(t, "26.1")
		e := f.engine()
		ctx := context.Background()
		folder := filepath.Join(f.root, "Users", "ana", "Sites", "site")
		os.MkdirAll(folder, 0o755)
		os.WriteFile(filepath.Join(folder, "index.html"), []byte("old"), 0o644)
		if err := e.HideFolder(ctx, folder, filepath.Join(f.root, "hidden")); !errors.Is(err, ramdisk.ErrUnsupported) {
			t.Fatalf("HideFolder: %v, want ErrUnsupported", err)
		}
		v, err := e.Create(ctx, planOpts(t, e, "Site", fs, ramdisk.VolumeOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		own := v.MountPoint
		os.WriteFile(filepath.Join(own, "index.html"), []byte("old"), 0o644) // the load
		if e.Covers(ctx, v, folder) {
			t.Fatal("covers before Cover")
		}
		if v, err = e.Cover(ctx, v, folder); err != nil {
			t.Fatal(err)
		}
		if v.MountPoint != folder || !e.Covers(ctx, v, folder) {
			t.Fatalf("%s: after Cover the volume is at %s", fs, v.MountPoint)
		}
		if c := f.called("diskutil", "mount", "-mountOptions", "rw,nosuid,nodev", "-mountPoint", folder); c != 1 {
			t.Errorf("%s: diskutil mount -mountPoint %s called %d times", fs, folder, c)
		}
		os.WriteFile(filepath.Join(folder, "index.html"), []byte("edited in place"), 0o644)
		if vs, _ := e.List(ctx); len(vs) != 1 || vs[0].MountPoint != folder || vs[0].Name != "Site" {
			t.Errorf("%s: List after Cover: %+v", fs, vs)
		}

		// A shell inside the folder: it stays covered, the shell named.
		release := f.hold(folder, ramdisk.Holder{PID: 4242, Command: "zsh"})
		_, err = e.Uncover(ctx, v, folder, false)
		var be *ramdisk.BusyError
		if !errors.As(err, &be) || len(be.Holders) != 1 || be.Holders[0].PID != 4242 {
			t.Fatalf("%s: Uncover with a shell inside: %v", fs, err)
		}
		if !e.Covers(ctx, v, folder) {
			t.Fatalf("%s: a busy Uncover uncovered the folder", fs)
		}
		release()

		// The write-back: uncover, write the disk's version, cover again.
		off, err := e.Uncover(ctx, v, folder, false)
		if err != nil {
			t.Fatal(err)
		}
		if off.MountPoint == folder || e.Covers(ctx, off, folder) {
			t.Fatalf("%s: uncovered, the volume is at %s", fs, off.MountPoint)
		}
		if b, _ := os.ReadFile(filepath.Join(folder, "index.html")); string(b) != "old" {
			t.Fatalf("%s: the uncovered folder shows %q", fs, b)
		}
		b, _ := os.ReadFile(filepath.Join(off.MountPoint, "index.html"))
		os.WriteFile(filepath.Join(folder, "index.html"), b, 0o644)
		if v, err = e.Cover(ctx, off, folder); err != nil || v.MountPoint != folder {
			t.Fatalf("%s: cover again: %v at %s", fs, err, v.MountPoint)
		}

		// Eject: uncover, then eject; the folder shows what was written back.
		if off, err = e.Uncover(ctx, v, folder, false); err != nil {
			t.Fatal(err)
		}
		if err := e.Eject(ctx, off, false); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(folder, "index.html")); string(b) != "edited in place" {
			t.Errorf("%s: after the eject the folder holds %q", fs, b)
		}
		if f.attached() != 0 {
			t.Errorf("%s: %d images left attached", fs, f.attached())
		}
		// Uncovering a folder nothing covers changes nothing.
		if _, err := e.Uncover(ctx, v, folder, false); err != nil {
			t.Errorf("%s: Uncover of a bare folder: %v", fs, err)
		}
	}
}

// TestInPlaceRefusesTmpfsOnMac: a mount_tmpfs disk cannot be moved over a
// folder.
func TestInPlaceRefusesTmpfsOnMac(t *testing.T) {
	f := newFakeMac(t, "26.1")
	e := f.engine()
	_, err := e.Cover(context.Background(), ramdisk.Volume{Name: "T", FS: ramdisk.TmpFS, MountPoint: filepath.Join(f.root, "T")}, f.root)
	if !errors.Is(err, ramdisk.ErrUnsupported) {
		t.Errorf("Cover of tmpfs: %v", err)
	}
}

// TestCoversByVolumeAndInode: the folder a Mirror disk covers is known by
// its volume and inode, so diskutil naming it /Users/… or by its firmlinked
// form /System/Volumes/Data/Users/… is the same; a folder that is another
// file (the Data volume's, not the disk's top) is not covered, nor is a
// volume of another disk.
func TestCoversByVolumeAndInode(t *testing.T) {
	const (
		users = "/Users/ana/Sites/site"
		data  = "/System/Volumes/Data/Users/ana/Sites/site"
	)
	top := fileID{dev: 0x1000013, ino: 2}      // the RAM disk's root
	under := fileID{dev: 0x1000010, ino: 4711} // the folder itself, uncovered
	for _, c := range []struct {
		name, fixture, folder string
		ids                   map[string]fileID
		device                string
		want                  bool
	}{
		{"diskutil says /System/Volumes/Data, asked /Users", "diskutil-info-inplace-data.plist", users,
			map[string]fileID{users: top, data: top}, "/dev/disk6", true},
		{"diskutil says /Users, asked /Users", "diskutil-info-inplace-users.plist", users,
			map[string]fileID{users: top, data: top}, "/dev/disk6", true},
		{"diskutil says /Users, asked the Data form", "diskutil-info-inplace-users.plist", data,
			map[string]fileID{users: top, data: top}, "/dev/disk6", true},
		{"by the physical store", "diskutil-info-inplace-data.plist", users,
			map[string]fileID{users: top, data: top}, "/dev/disk5s1", true},
		{"another file at the path", "diskutil-info-inplace-data.plist", users,
			map[string]fileID{users: under, data: top}, "/dev/disk6", false},
		{"cannot stat the folder", "diskutil-info-inplace-data.plist", users,
			map[string]fileID{data: top}, "/dev/disk6", false},
		{"another disk's volume", "diskutil-info-inplace-data.plist", users,
			map[string]fileID{users: top, data: top}, "/dev/disk9", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := string(read(t, c.fixture))
			e := New(runtest.Func(func(argv []string, _ string) runtest.Reply {
				if len(argv) == 4 && argv[1] == "info" && argv[3] == c.folder {
					return runtest.Reply{Stdout: info}
				}
				return runtest.Reply{Stderr: "unexpected", Exit: 1}
			}), withFileID(func(p string) (fileID, error) {
				if id, ok := c.ids[p]; ok {
					return id, nil
				}
				return fileID{}, os.ErrNotExist
			}))
			v := ramdisk.Volume{Name: "Site", Device: c.device, MountPoint: c.folder}
			if got := e.Covers(context.Background(), v, c.folder); got != c.want {
				t.Errorf("Covers(%s) = %v, want %v", c.folder, got, c.want)
			}
		})
	}
}
