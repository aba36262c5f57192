package darwin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/ramdisk"
)

// TestCacheFallbackCommandLines: a plan with a cache fallback at a folder of
// the user's leaves the link FOLDER/Caches -> fallback before the volume is
// mounted there (the fake Mac notes what the folder held at the mount), with
// the same diskutil calls as any mount point of one's choice and no
// administrator prompt; eject leaves the folder and its link. In /Volumes (no mount point of its own), or over a
// folder holding anything else, it is refused before anything is attached.
func TestCacheFallbackCommandLines(t *testing.T) {
	t.Setenv("SUDO_UID", "501") // the disks are the fake Mac's user's, as under sudo (the test is root)
	fb := filepath.Join(t.TempDir(), "cache-empty", "inbox")
	for _, tt := range []struct {
		name  string
		setup func(dir string)
		mp    bool
		want  error
	}{
		{"the owner's empty folder", func(dir string) { os.Mkdir(dir, 0o700); os.Chown(dir, 501, 20) }, true, nil},
		{"in /Volumes", func(string) {}, false, ramdisk.ErrUnsupported},
		{"a folder with a file", func(dir string) { os.Mkdir(dir, 0o700); os.Chown(dir, 501, 20) }, true, ramdisk.ErrOption},
		{"someone else's folder", func(dir string) { os.Mkdir(dir, 0o700); os.Chown(dir, 502, 20) }, true, ramdisk.ErrOption},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMac(t, "26.4.1")
			e := f.engine()
			if e.Caps().KeepsMountPoints {
				t.Error("macOS keeps no mount point in /Volumes")
			}
			dir := filepath.Join(t.TempDir(), "Inbox RAM")
			tt.setup(dir)
			var o ramdisk.VolumeOptions
			if tt.mp {
				o.MountPoint = dir
			}
			p, err := ramdisk.NewPlan(ramdisk.Request{Name: "Inbox", Size: 64 * ramdisk.MiB, FS: ramdisk.APFS, Force: true, Options: o}, ramdisk.Facts{Caps: e.Caps()})
			p.CacheFallback = fb
			if tt.name == "a folder with a file" { // put there after the plan's own check
				os.WriteFile(filepath.Join(dir, "mine"), nil, 0o600)
			}
			var v ramdisk.Volume
			if err == nil { // someone else's folder is refused by the plan already
				v, err = e.Create(ctx, p)
			}
			if tt.want != nil {
				if !errors.Is(err, tt.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("Create = %v, want one line wrapping %v", err, tt.want)
				}
				if n := f.called("hdiutil", "attach") + f.called("diskutil", "image", "attach"); n != 0 {
					t.Errorf("%d attach calls after a refusal", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.MountPoint != dir {
				t.Errorf("mounted at %s, want %s", v.MountPoint, dir)
			}
			fakeVolumes.Lock()
			below := fakeVolumes.below[dir]
			fakeVolumes.Unlock()
			if want := []string{ramdisk.FallbackLink + " -> " + fb}; fmt.Sprint(below) != fmt.Sprint(want) {
				t.Errorf("the folder held %q when the volume was mounted on it, want %q", below, want)
			}
			if n := f.called("diskutil", "mount", "-mountPoint", dir); n != 1 {
				t.Errorf("diskutil mount -mountPoint %s ran %d times", dir, n)
			}
			if f.called("osascript") != 0 {
				t.Errorf("an administrator prompt was used")
			}
			if err := e.Eject(ctx, v, false); err != nil {
				t.Fatal(err)
			}
			if dest, err := os.Readlink(filepath.Join(dir, ramdisk.FallbackLink)); err != nil || dest != fb {
				t.Errorf("after eject the folder's link is %q (%v), want %s", dest, err, fb)
			}
		})
	}
}
