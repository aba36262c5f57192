//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/ramdisk"
)

// TestDetachedToldApartByItsID: a disk ejected with force while held is
// still held by its holder under the id DeviceID gave before the eject,
// and under an older record's "major:minor"; under its number with another
// file system's id (the number given again, to a detached file system or
// one in another mount namespace) it is gone, and its holder is not
// reported as holding it; once the holder lets go, it is gone.
func TestDetachedToldApartByItsID(t *testing.T) {
	for _, fs := range []ramdisk.FileSystem{ramdisk.TmpFS, ramdisk.ZRAM} {
		t.Run(string(fs), func(t *testing.T) {
			e := newTestEngine(t)
			v := mustCreate(t, e, plan(t, e, "Detached", 16*ramdisk.MiB, fs))
			if err := os.WriteFile(filepath.Join(v.MountPoint, "data.bin"), make([]byte, 1<<20), 0o600); err != nil {
				t.Fatal(err)
			}
			release := hold(t, v)
			id := e.DeviceID(v)
			parts := strings.Split(id, ":")
			if len(parts) != 3 || len(parts[2]) != 16 {
				t.Fatalf("DeviceID = %q, want major:minor:fsid", id)
			}
			if err := e.Eject(ctx, v, true); err != nil {
				t.Fatalf("forced Eject: %v", err)
			}
			for _, tc := range []struct {
				name, id string
				gone     bool
			}{
				{"its own id", id, false},
				{"an older record's major:minor", parts[0] + ":" + parts[1], false},
				{"another file system's id", parts[0] + ":" + parts[1] + ":0123456789abcdef", true},
				{"a damaged id", parts[0] + ":" + parts[1] + ":xyz", true},
			} {
				hs, held, gone := e.StillHeld(ctx, tc.id)
				if gone != tc.gone || (!gone && (len(hs) != 1 || held <= 0)) || (gone && len(hs) != 0) {
					t.Errorf("%s: StillHeld(%q) = %+v, %d, gone %v; want gone %v", tc.name, tc.id, hs, held, gone, tc.gone)
				}
			}
			release()
			if _, err := e.List(ctx); err != nil {
				t.Fatal(err)
			}
			if hs, _, gone := e.StillHeld(ctx, id); !gone {
				t.Errorf("after its holder left: held by %+v", hs)
			}
		})
	}
}
