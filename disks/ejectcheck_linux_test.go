package disks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"rambar/keeper"
	"rambar/ramdisk"
)

// TestCreateRefusesClashesFirst: options that cannot work together (in
// place with a mount point of its own, a mount point at, in or around the
// Mirror folder, in place without a Mirror folder, a preset that asks for
// in place and a mount point) are refused as bad input before anything is
// made: the mount table under the test's folder is as it was, and nothing
// is recorded in the data folder.
func TestCreateRefusesClashesFirst(t *testing.T) {
	f := newInPlace(t, false)
	base := filepath.Dir(filepath.Dir(f.folder))
	mirror := keeper.Options{Mode: ramdisk.Mirror, MirrorPath: f.folder}
	inPlace := keeper.Options{Mode: ramdisk.Mirror, MirrorPath: f.folder, InPlace: true}
	preset := ramdisk.Preset{Name: "Clash", Size: "64M", Contents: ramdisk.Mirror, MirrorPath: f.folder, InPlace: true,
		MountPoint: filepath.Join(base, "mp")}
	for _, tt := range []struct {
		name       string
		contents   keeper.Options
		mountPoint string
		preset     *ramdisk.Preset
		why        string
	}{
		{"in place with a mount point", inPlace, filepath.Join(base, "mp"), nil, "--in-place and --mount-point"},
		{"mount point is the Mirror folder", mirror, f.folder, nil, "mirrored into itself"},
		{"mount point inside the Mirror folder", mirror, filepath.Join(f.folder, "ram"), nil, "mirrored into itself"},
		{"Mirror folder inside the mount point", mirror, filepath.Dir(f.folder), nil, "mirrored into itself"},
		{"in place, kept", keeper.Options{Mode: ramdisk.Keep, InPlace: true}, "", nil, "--in-place goes with --mirror"},
		{"a preset in place with a mount point", keeper.Options{}, "", &preset, "--in-place and --mount-point"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := mountsUnder(t, base)
			r := CreateRequest{Input: ramdisk.Input{Name: "Clash", Size: "64M", Options: ramdisk.VolumeOptions{MountPoint: tt.mountPoint}},
				Contents: tt.contents, Preset: tt.preset}
			if tt.preset != nil {
				r.Input = tt.preset.Input()
			}
			_, err := f.s.Create(context.Background(), r)
			if !errors.Is(err, ramdisk.ErrOption) || !errors.Is(err, ErrContents) || !strings.Contains(err.Error(), tt.why) {
				t.Fatalf("create: %v, want a refusal saying %q", err, tt.why)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the refusal is more than one line: %q", err)
			}
			if after := mountsUnder(t, base); !slices.Equal(before, after) {
				t.Fatalf("the mount table changed: %v, then %v", before, after)
			}
			if ents, _ := os.ReadDir(f.s.Paths.Data); len(ents) != 0 {
				t.Fatalf("the data folder holds %v after a refusal", ents)
			}
			if isTmpfs(f.folder) {
				t.Fatal("the folder is covered")
			}
		})
	}
}

// TestEjectSaysEjectedOnlyWhenUnmounted: an eject after which a mount of
// the disk remains (a bind of its mount point somewhere else, of a plain
// disk and of one in place, plain and forced, from the CLI's use case and
// the menu's, which Eject All and quit run too) returns ErrStillMounted
// naming the mount, and keeps the disk's records; once the mount is gone,
// the next eject settles what is left and the folder holds the edit.
func TestEjectSaysEjectedOnlyWhenUnmounted(t *testing.T) {
	for _, tt := range []struct {
		name                 string
		inPlace, force, menu bool
	}{
		{"plain disk", false, false, false},
		{"plain disk, forced", false, true, false},
		{"in place", true, false, false},
		{"in place, forced", true, true, false},
		{"the menu, in place", true, false, true},
		{"the menu's force eject", false, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newInPlace(t, false)
			ctx := context.Background()
			var v ramdisk.Volume
			if tt.inPlace {
				v = f.create("Bound").Volume
				write(t, filepath.Join(f.folder, "index.html"), "edited in place")
			} else {
				c, err := f.s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Bound", Size: "64M"}})
				if err != nil {
					t.Fatal(err)
				}
				v = c.Volume
			}
			extra := filepath.Join(filepath.Dir(f.folder), "extra")
			os.Mkdir(extra, 0o755)
			if err := syscall.Mount(v.MountPoint, extra, "", syscall.MS_BIND, ""); err != nil {
				t.Fatal(err)
			}
			var err error
			if tt.menu {
				err = NewMenu(f.s).Eject(ctx, v, tt.force)
			} else {
				_, err = f.s.Eject(ctx, v, EjectOptions{Force: tt.force})
			}
			var sm *StillMountedError
			if !errors.Is(err, ErrStillMounted) || !errors.As(err, &sm) || !sm.DiskLeft || !strings.Contains(err.Error(), extra) {
				t.Fatalf("eject with a bind of it left: %v, want ErrStillMounted naming %s", err, extra)
			}
			if !mounted(t, extra) {
				t.Fatal("the bind is gone: the test did not leave a mount")
			}
			if err := syscall.Unmount(extra, syscall.MNT_DETACH); err != nil {
				t.Fatal(err)
			}
			if tt.inPlace {
				if got := files(t, f.folder)["index.html"]; got != "edited in place" || isTmpfs(f.folder) {
					t.Fatalf("the folder holds %q (covered %v)", got, isTmpfs(f.folder))
				}
				if settled, err := f.s.Settle(ctx, "Bound"); err != nil {
					t.Fatalf("settle: %v (settled %v)", err, settled)
				}
			}
			if _, err := f.s.Find(ctx, "Bound"); err == nil {
				t.Fatal("the disk is still listed at its mount point")
			}
			if mounted(t, f.s.inPlaceKey("Bound")) || isTmpfs(f.folder) {
				t.Fatal("a mount of the disk is left once settled")
			}
		})
	}
}

// TestOldInPlaceWithMountPoint: what an older RAMBar made of create
// --in-place --mount-point (the disk at its own folder, a cover over the
// Mirror folder, a hidden copy whose record names a mount point RAMBar does
// not take) is never said to be ejected while a mount of it is left: the
// forced eject names the cover and the hidden copy; doctor lists what it
// cannot settle; once the cover is unmounted as it says, the next create
// of that name removes the hidden copy and mirrors the folder in place.
func TestOldInPlaceWithMountPoint(t *testing.T) {
	f := newInPlace(t, false)
	ctx := context.Background()
	mp := filepath.Join(filepath.Dir(f.folder), "mp8")
	name := "M8"
	if _, err := f.s.hideFolder(ctx, name, f.folder); err != nil {
		t.Fatal(err)
	}
	plan, err := ramdisk.NewPlan(ramdisk.Request{Name: name, Size: 64 << 20, Options: ramdisk.VolumeOptions{MountPoint: mp}}, mustFacts(t, f.s))
	if err != nil {
		t.Fatal(err)
	}
	v, err := f.s.Engine.Create(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(v.MountPoint, f.folder, "", syscall.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	if err := f.s.writeInPlace(inPlaceRecord{Name: name, Folder: f.folder, Hidden: f.s.inPlaceKey(name), Disk: mp, Step: ipInPlace}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(f.folder, "written.txt"), "on the disk only")
	vs, _ := f.s.Engine.List(ctx)
	for _, d := range vs {
		if d.MountPoint != mp {
			continue
		}
		_, err := f.s.Eject(ctx, d, EjectOptions{Force: true})
		if !errors.Is(err, ErrStillMounted) || !strings.Contains(err.Error(), f.folder) || !strings.Contains(err.Error(), f.s.inPlaceKey(name)) {
			t.Fatalf("forced eject: %v, want ErrStillMounted naming the cover and the hidden copy", err)
		}
	}
	if !isTmpfs(f.folder) || !mounted(t, f.s.inPlaceKey(name)) {
		t.Fatal("the test did not leave the cover and the hidden copy")
	}
	ls, err := f.s.Leftovers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, l := range ls {
		if l.Kind == LeftMounted {
			listed = append(listed, l.Path)
		}
	}
	if !slices.Contains(listed, f.s.inPlaceKey(name)) {
		t.Errorf("doctor lists %v, want the hidden copy %s", listed, f.s.inPlaceKey(name))
	}
	if got := files(t, f.folder)["written.txt"]; got != "on the disk only" {
		t.Fatalf("the cover lost the file written on it: %q", got)
	}
	// As the refusal says: copy out what is needed, then unmount it.
	if err := syscall.Unmount(f.folder, syscall.MNT_DETACH); err != nil {
		t.Fatal(err)
	}
	c, err := f.s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: name, Size: "64M"},
		Contents: keeper.Options{Mode: ramdisk.Mirror, MirrorPath: f.folder, InPlace: true}})
	if err != nil {
		t.Fatalf("the next create did not settle the leftovers: %v", err)
	}
	if f.s.InPlace(ctx, c.Volume) != f.folder {
		t.Fatal("the new disk is not in place")
	}
	if _, err := f.s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if mounted(t, f.s.inPlaceKey(name)) || isTmpfs(f.folder) {
		t.Fatal("a mount is left after the last eject")
	}
}

func mustFacts(t *testing.T, s *Service) ramdisk.Facts {
	t.Helper()
	fa, err := s.Facts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fa
}

// TestUpRefusesAStoredClash: a stored preset in place with a mount point
// of its own (an older RAMBar accepted it) is not mounted by up: it fails
// with the reason and how to change the preset, with nothing mounted, while
// the other auto-mount preset is mounted.
func TestUpRefusesAStoredClash(t *testing.T) {
	f := newInPlace(t, false)
	base := filepath.Dir(filepath.Dir(f.folder))
	f.s.Paths.Settings = filepath.Join(base, "settings.plist")
	st, err := f.s.Store()
	if err != nil {
		t.Fatal(err)
	}
	bad := ramdisk.Preset{Name: "M8", Size: "64M", AutoMount: true, Contents: ramdisk.Mirror, MirrorPath: f.folder, InPlace: true,
		MountPoint: filepath.Join(base, "mp8")}
	good := ramdisk.Preset{Name: "Fine", Size: "16M", AutoMount: true}
	if _, err := st.Update(8<<30, func(s *ramdisk.Settings) error {
		s.Presets = append(s.Presets, bad, good) // as a file of an older RAMBar holds them
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	mounts := mountsUnder(t, base)
	rs, err := f.s.Up(context.Background(), UpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		switch r.Preset.Name {
		case "M8":
			if r.Outcome != UpFailed || !errors.Is(r.Err, ramdisk.ErrOption) || !strings.Contains(r.Err.Error(), "preset edit M8") {
				t.Errorf("up M8: %s %v, want a failure saying how to change the preset", r.Outcome, r.Err)
			}
		case "Fine":
			if r.Outcome != UpMounted {
				t.Errorf("up Fine: %s %v", r.Outcome, r.Err)
			} else if _, err := f.s.Eject(context.Background(), r.Volume, EjectOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if now := mountsUnder(t, base); !slices.Equal(mounts, now) || isTmpfs(f.folder) {
		t.Fatalf("mounts before %v, after %v", mounts, now)
	}
}
