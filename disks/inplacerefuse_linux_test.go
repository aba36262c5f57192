package disks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"rambar/keeper"
	"rambar/ramdisk"
)

// TestInPlaceRefused: each folder that may not be covered is refused with
// a one-line reason, and nothing changes: no disk, no mount, no record,
// the folder as it was.
func TestInPlaceRefused(t *testing.T) {
	cases := []struct {
		name, why string
		setup     func(t *testing.T, f *inPlaceFixture)
	}{
		{"a mount point", "mount point", func(t *testing.T, f *inPlaceFixture) {
			mustMount(t, f.folder)
		}},
		{"a folder holding a mount point", "holds", func(t *testing.T, f *inPlaceFixture) {
			mustMount(t, filepath.Join(f.folder, "src"))
		}},
		{"the home folder", "home folder", func(t *testing.T, f *inPlaceFixture) {
			t.Setenv("HOME", f.folder)
		}},
		{"a folder another user owns", "belongs to another user (uid 65534", func(t *testing.T, f *inPlaceFixture) {
			os.Chown(f.folder, 65534, 65534)
		}},
		{"under sudo, a folder root owns", "belongs to another user (uid 0, not 65534)", func(t *testing.T, f *inPlaceFixture) {
			t.Setenv("SUDO_UID", "65534")
			t.Setenv("SUDO_GID", "65534")
		}},
		{"a folder another disk mirrors", "is mirrored by the disk Other", func(t *testing.T, f *inPlaceFixture) {
			_, err := f.s.Create(context.Background(), CreateRequest{Input: ramdisk.Input{Name: "Other", Size: "64M"},
				Contents: keeper.Options{Mode: ramdisk.Mirror, MirrorPath: f.folder}})
			if err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newInPlace(t, false)
			c.setup(t, f)
			before := files(t, f.folder)
			mountsBefore := len(mountsUnder(t, filepath.Dir(f.s.Paths.Data)))
			_, err := f.s.Create(context.Background(), CreateRequest{Input: ramdisk.Input{Name: "Here", Size: "64M"},
				Contents: keeper.Options{Mode: ramdisk.Mirror, MirrorPath: f.folder, InPlace: true}})
			if err == nil || !strings.Contains(err.Error(), c.why) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("create in place: %v, want one line saying %q", err, c.why)
			}
			if !errors.Is(err, ErrContents) {
				t.Errorf("not bad input: %v", err)
			}
			t.Log(err)
			if got := files(t, f.folder); !sameFiles(got, before) {
				t.Errorf("the folder changed: %v", got)
			}
			if n := len(mountsUnder(t, filepath.Dir(f.s.Paths.Data))); n != mountsBefore {
				t.Errorf("%d mounts, %d before", n, mountsBefore)
			}
			if _, err := f.s.Find(context.Background(), "Here"); err == nil {
				t.Error("a disk was made")
			}
			if _, ok := f.s.readInPlace("Here"); ok {
				t.Error("a record was written")
			}
		})
	}
}

func mustMount(t *testing.T, dir string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	if err := syscall.Mount("other", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatal(err)
	}
}
