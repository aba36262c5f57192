//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"testing"

	"rambar/internal/run"
	"rambar/ramdisk"
)

// TestOthersDisksLeftAlone: a developer's own RAMBar disks, made before the
// test by another engine with its own mount root and records (tmpfs at a
// folder of their choice, which every engine lists; zram under that root)
// are never counted as a test's own (listOwn), and the test's creates,
// lists, ejects and clean-ups of leftover devices leave them mounted with
// their files.
func TestOthersDisksLeftAlone(t *testing.T) {
	user := New(run.System(), WithMountRoot(filepath.Join(t.TempDir(), "users")), WithZramRecords(filepath.Join(t.TempDir(), "zram")))
	home := t.TempDir()
	type theirs struct {
		v      ramdisk.Volume
		file   string
		listed bool // at a folder of its own: every engine lists it
	}
	var others []theirs
	for _, c := range []struct {
		fs ramdisk.FileSystem
		mp string
	}{{ramdisk.TmpFS, filepath.Join(home, "scratch")}, {ramdisk.ZRAM, ""}} {
		name := "Mine " + string(c.fs)
		if c.mp != "" {
			unmountAtEnd(t, c.mp)
		}
		p, err := ramdisk.NewPlan(ramdisk.Request{Name: name, Size: 16 * ramdisk.MiB, FS: c.fs, Force: true,
			Options: ramdisk.VolumeOptions{MountPoint: c.mp}}, ramdisk.Facts{Caps: user.Caps()})
		if err != nil {
			t.Fatal(err)
		}
		v, err := user.Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { user.Eject(ctx, v, true) })
		file := filepath.Join(v.MountPoint, "work.txt")
		if err := os.WriteFile(file, []byte("the developer's work"), 0o600); err != nil {
			t.Fatal(err)
		}
		others = append(others, theirs{v, file, c.mp != ""})
	}

	e := zramEngine(t)
	for _, fs := range []ramdisk.FileSystem{ramdisk.TmpFS, ramdisk.ZRAM} {
		v := mustCreate(t, e, plan(t, e, "Test "+string(fs), 16*ramdisk.MiB, fs))
		own, err := listOwn(t, e)
		if err != nil || len(own) != 1 || own[0].Name != v.Name {
			t.Errorf("the test's own disks: %+v, %v; want only %s", own, err, v.Name)
		}
		all, _ := e.List(ctx)
		for _, o := range others {
			if o.listed && !listed(all, o.v) {
				t.Errorf("List does not show %s at %s: %+v", o.v.Name, o.v.MountPoint, all)
			}
		}
		if err := e.Eject(ctx, v, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.FreeLeftoverDevices(ctx); err != nil {
		t.Error(err)
	}
	if own, _ := listOwn(t, e); len(own) != 0 {
		t.Errorf("after the ejects the test still has %+v", own)
	}
	for _, o := range others {
		if !isMounted(t, e, o.v.MountPoint) {
			t.Errorf("%s, the developer's, is no longer mounted at %s", o.v.Name, o.v.MountPoint)
		}
		if b, err := os.ReadFile(o.file); err != nil || string(b) != "the developer's work" {
			t.Errorf("%s: %q, %v", o.file, b, err)
		}
	}
}

// listed reports whether vs holds v (by name and mount point).
func listed(vs []ramdisk.Volume, v ramdisk.Volume) bool {
	for _, w := range vs {
		if w.Name == v.Name && w.MountPoint == v.MountPoint {
			return true
		}
	}
	return false
}
