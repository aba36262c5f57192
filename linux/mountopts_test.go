//go:build linux

package linux

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"rambar/ramdisk"
)

// planWith plans a disk with options, as NewPlan does for the CLI.
func planWith(t *testing.T, e *Engine, name string, o ramdisk.VolumeOptions) ramdisk.Plan {
	t.Helper()
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: name, Size: 8 * ramdisk.MiB, Force: true, Options: o}, ramdisk.Facts{Caps: e.Caps()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// unmountAtEnd lazily unmounts dir when the test ends, in case it failed
// half way (testRoot's scrub only looks under the mount root).
func unmountAtEnd(t *testing.T, dir string) {
	t.Cleanup(func() {
		for syscall.Unmount(dir, syscall.MNT_DETACH) == nil {
			t.Errorf("left mounted: %s", dir)
		}
	})
}

// TestNoExecRefusesToRun: a script on a --noexec disk does not run (EACCES),
// while the same script runs from a plain disk.
func TestNoExecRefusesToRun(t *testing.T) {
	e := newTestEngine(t)
	for _, noexec := range []bool{false, true} {
		name := map[bool]string{false: "Exec", true: "NoExec"}[noexec]
		v := mustCreate(t, e, planWith(t, e, name, ramdisk.VolumeOptions{NoExec: noexec}))
		script := filepath.Join(v.MountPoint, "run.sh")
		if err := os.WriteFile(script, []byte("#!/bin/sh\necho ran\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(script).Output()
		if !noexec {
			if err != nil || strings.TrimSpace(string(out)) != "ran" {
				t.Errorf("plain disk: %q, %v; want the script to run", out, err)
			}
			continue
		}
		if !errors.Is(err, syscall.EACCES) {
			t.Errorf("noexec disk: running a script gave %q, %v; want EACCES", out, err)
		}
		m, _ := mountAt(mustMounts(t, e), v.MountPoint)
		for _, o := range []string{"noexec", "nosuid", "nodev"} {
			if !strings.Contains(","+m.Options+",", ","+o+",") {
				t.Errorf("mount options %q lack %s", m.Options, o)
			}
		}
	}
}

func mustMounts(t *testing.T, e *Engine) []mountEntry {
	t.Helper()
	ms, err := e.mounts()
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestCustomMountPoint: a disk mounted at a folder of one's choice, absent
// or empty, is listed under its name there, ejects, and leaves the folder.
func TestCustomMountPoint(t *testing.T) {
	e := newTestEngine(t)
	base := t.TempDir()
	for _, tt := range []struct{ name, dir string }{{"Absent", filepath.Join(base, "new folder")}, {"Empty", filepath.Join(base, "empty")}} {
		if tt.name == "Empty" {
			os.Mkdir(tt.dir, 0o755)
		}
		unmountAtEnd(t, tt.dir)
		p := planWith(t, e, tt.name, ramdisk.VolumeOptions{MountPoint: tt.dir})
		if p.MountPoint != tt.dir {
			t.Fatalf("plan mounts at %s, want %s", p.MountPoint, tt.dir)
		}
		v, err := e.Create(ctx, p)
		if err != nil {
			t.Fatalf("Create at %s: %v", tt.dir, err)
		}
		if v.MountPoint != tt.dir || !isMounted(t, e, tt.dir) {
			t.Errorf("mounted at %s (mounted there: %v), want %s", v.MountPoint, isMounted(t, e, tt.dir), tt.dir)
		}
		vs, err := listOwn(t, e, base)
		if err != nil || len(vs) != 1 || vs[0].Name != tt.name || vs[0].MountPoint != tt.dir || !vs[0].Managed {
			t.Errorf("List = %+v, %v; want the managed %s at %s", vs, err, tt.name, tt.dir)
		}
		if err := e.Eject(ctx, v, false); err != nil {
			t.Fatal(err)
		}
		if isMounted(t, e, tt.dir) {
			t.Errorf("%s still mounted after eject", tt.dir)
		}
		if st, err := os.Stat(tt.dir); err != nil || !st.IsDir() {
			t.Errorf("the chosen folder went with the disk: %v", err)
		}
	}
}

// TestCustomMountPointRefusals: the checks NewPlan makes on real folders,
// each with its one-line reason, and nothing mounted after any of them.
func TestCustomMountPointRefusals(t *testing.T) {
	e := newTestEngine(t)
	other := mustCreate(t, e, planWith(t, e, "Other", ramdisk.VolumeOptions{}))
	base := t.TempDir()
	full := filepath.Join(base, "full")
	os.Mkdir(full, 0o755)
	os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o600)
	os.Symlink(base, filepath.Join(base, "link"))
	t.Setenv("HOME", base)
	facts := ramdisk.Facts{Caps: e.Caps(), Mounted: []ramdisk.Volume{other}}
	for dir, why := range map[string]string{
		full:                                 "not empty",
		filepath.Join(base, "link"):          "symbolic link",
		base:                                 "your home folder itself",
		"/":                                  "a system folder",
		"/usr/local/ram":                     "inside the system folder /usr",
		"/etc":                               "inside the system folder /etc",
		filepath.Join(other.MountPoint, "x"): "inside RAMBar's mount root",
		"relative":                           "absolute path",
	} {
		_, err := ramdisk.NewPlan(ramdisk.Request{Name: "New", Size: 8 * ramdisk.MiB, Force: true, Options: ramdisk.VolumeOptions{MountPoint: dir}}, facts)
		if !errors.Is(err, ramdisk.ErrOption) || !strings.Contains(err.Error(), why) || strings.Contains(err.Error(), "\n") {
			t.Errorf("mount point %s: %v; want a one-line refusal saying %q", dir, err, why)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(full, "keep.txt")); string(b) != "mine" {
		t.Errorf("the full folder changed")
	}
	// zram cannot be mounted elsewhere (List would not find it).
	p := planWith(t, e, "Z", ramdisk.VolumeOptions{MountPoint: filepath.Join(base, "z")})
	p.FS = ramdisk.ZRAM
	if e.zramAvailable() {
		if _, err := e.Create(ctx, p); !errors.Is(err, ramdisk.ErrUnsupported) {
			t.Errorf("zram at a chosen folder: %v, want ErrUnsupported", err)
		}
	}
	if vs, _ := listOwn(t, e, base); len(vs) != 1 {
		t.Errorf("after refusals: %+v", vs)
	}
}

// isMounted reports whether something is mounted at dir.
func isMounted(t *testing.T, e *Engine, dir string) bool {
	_, ok := mountAt(mustMounts(t, e), dir)
	return ok
}
