package cache

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"rambar/ramdisk"
)

// TestCacheMountPoints: where mount points stay (Linux) every disk gets the
// fallback link; where they do not (macOS /Volumes) only a disk at a folder
// of its own does, a preset with cache targets is given DATA/Volumes/NAME,
// and 'cache on' a disk in /Volumes is refused with the exact fix.
func TestCacheMountPoints(t *testing.T) {
	data := t.TempDir()
	c := &Caches{Data: data}
	linux := ramdisk.Caps{OS: "linux", MountRoot: "/mnt/rambar", KeepsMountPoints: true}
	mac := ramdisk.Caps{OS: "darwin", MountRoot: "/Volumes"}
	fb := filepath.Join(data, "cache-empty", "scratch")
	for _, tt := range []struct {
		name   string
		caps   ramdisk.Caps
		preset *ramdisk.Preset
		mp     string
		wantMP string
		wantFB string
	}{
		{"linux", linux, nil, "", "", fb},
		{"mac in /Volumes", mac, nil, "", "", ""},
		{"mac at a folder", mac, nil, "/Users/ada/RAM", "/Users/ada/RAM", fb},
		{"mac preset with caches", mac, &ramdisk.Preset{Name: "Scratch", Caches: []string{"go"}}, "", filepath.Join(data, "Volumes", "Scratch"), fb},
		{"mac preset with caches at a folder", mac, &ramdisk.Preset{Name: "Scratch", Caches: []string{"go"}}, "/Users/ada/RAM", "/Users/ada/RAM", fb},
		{"mac preset without caches", mac, &ramdisk.Preset{Name: "Scratch"}, "", "", ""},
		{"linux preset with caches", linux, &ramdisk.Preset{Name: "Scratch", Caches: []string{"go"}}, "", "", fb},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := ramdisk.VolumeOptions{MountPoint: tt.mp}
			if err := c.MountPointFor("Scratch", tt.preset, &o, tt.caps); err != nil {
				t.Fatal(err)
			}
			if o.MountPoint != tt.wantMP {
				t.Errorf("mount point %q, want %q", o.MountPoint, tt.wantMP)
			}
			p := ramdisk.Plan{Name: "Scratch", Options: o}
			c.WithFallback(&p, tt.caps)
			if p.CacheFallback != tt.wantFB {
				t.Errorf("fallback %q, want %q", p.CacheFallback, tt.wantFB)
			}
		})
	}
	err := c.cacheFallbackFix(ramdisk.Volume{Name: "Scratch", MountPoint: "/Volumes/Scratch"}, "/Users/ada/Library/Caches/Yarn", mac)
	want := `rambar create Scratch SIZE --mount-point "` + filepath.Join(data, "Volumes", "Scratch") + `"`
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("cache on a disk in /Volumes: %v; want one line with %s", err, want)
	}
}
