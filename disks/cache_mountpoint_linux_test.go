package disks

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"rambar/cache"
	"rambar/ramdisk"
)

// TestMountPointGoesWithTheLastCache: a disk's mount point under the mount
// root outlives the disk while a cache of it needs its fallback link, and
// goes as any other disk's does once no cache is left on it: whether the
// last cache is switched off while the disk is mounted (then the eject
// removes it) or while it is away (then cache off does). Before, cache off
// of a disk that was away left its empty mount point folder for good.
func TestMountPointGoesWithTheLastCache(t *testing.T) {
	tests := []struct {
		name string
		// steps run on the disk (mounted, with caches go and, when two,
		// npm on it) and end with it ejected.
		steps func(t *testing.T, f *cacheFixture, v ramdisk.Volume, go_, npm cache.Target)
		two   bool
		// stays: the mount point must stay, its link leading to a folder.
		stays bool
	}{
		{name: "off while mounted, then eject", steps: func(t *testing.T, f *cacheFixture, v ramdisk.Volume, go_, _ cache.Target) {
			cacheOff(t, f, go_)
			eject(t, f, v)
		}},
		{name: "eject, then off while away", steps: func(t *testing.T, f *cacheFixture, v ramdisk.Volume, go_, _ cache.Target) {
			eject(t, f, v)
			cacheOff(t, f, go_)
		}},
		{name: "two caches, both off while away", two: true, steps: func(t *testing.T, f *cacheFixture, v ramdisk.Volume, go_, npm cache.Target) {
			eject(t, f, v)
			cacheOff(t, f, go_)
			cacheOff(t, f, npm)
		}},
		{name: "two caches, one off while away", two: true, stays: true, steps: func(t *testing.T, f *cacheFixture, v ramdisk.Volume, go_, _ cache.Target) {
			eject(t, f, v)
			cacheOff(t, f, go_)
		}},
		{name: "ejected with its cache on", stays: true, steps: func(t *testing.T, f *cacheFixture, v ramdisk.Volume, _, _ cache.Target) {
			eject(t, f, v)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCacheFixture(t)
			v := f.mount(t)
			go_ := cache.Target{Key: "go", Label: "Go build cache", Path: f.target}
			npm := cache.Target{Key: "npm", Label: "npm cache", Path: filepath.Join(f.home, ".npm")}
			targets := []cache.Target{go_}
			if tt.two {
				targets = append(targets, npm)
			}
			for _, tg := range targets {
				if _, err := f.s.Caches().On(context.Background(), "Cache", tg, false); err != nil {
					t.Fatal(err)
				}
			}
			tt.steps(t, f, v, go_, npm)
			_, err := os.Lstat(v.MountPoint)
			switch {
			case tt.stays && err != nil:
				t.Fatalf("the mount point is gone while a cache needs it: %v", err)
			case tt.stays:
				if st, err := os.Stat(filepath.Join(v.MountPoint, ramdisk.FallbackLink)); err != nil || !st.IsDir() {
					t.Errorf("the mount point's fallback link leads to no folder: %v", err)
				}
			case err == nil:
				ents, _ := os.ReadDir(v.MountPoint)
				t.Errorf("the mount point %s is left with no cache on the disk, holding %d entries", v.MountPoint, len(ents))
			}
		})
	}
}

// cacheOff switches target tg off.
func cacheOff(t *testing.T, f *cacheFixture, tg cache.Target) {
	t.Helper()
	if err := f.s.Caches().Off(context.Background(), tg.Path); err != nil {
		t.Fatal(err)
	}
}

// eject ejects v, saved as usual.
func eject(t *testing.T, f *cacheFixture, v ramdisk.Volume) {
	t.Helper()
	if _, err := f.s.Eject(context.Background(), v, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
}
