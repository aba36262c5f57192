//go:build linux

package mounttest

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// Kinds are the mounts a disk may have inside: a bind mount of a folder
// outside it, a second tmpfs, a loop-mounted ext4 image.
var Kinds = []string{"bind", "tmpfs", "ext4"}

// Mount is a file system mounted inside a disk, with files that are not
// the disk's.
type Mount struct {
	Kind string
	// At is the mount point inside the disk.
	At string
	// witness shows the same files from outside the disk (the bound
	// folder, or a bind of the mount), whatever becomes of the disk.
	witness string
	files   map[string]string
}

// Make mounts a file system of kind (see Kinds) at the folder at (made if
// missing) and puts files in it; the mounts go when the test ends.
func Make(t testing.TB, kind, at string) *Mount {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts file systems: run it as root (CI does)")
	}
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	m := &Mount{Kind: kind, At: at, files: map[string]string{
		"outside.txt":        "not the disk's: " + kind,
		"project/main.go":    "package main // " + kind,
		"project/deep/a/b/c": "deep " + kind,
		"project/.git/HEAD":  "ref: refs/heads/main",
		"empty-folder/.keep": "",
		"project/big.bin":    string(make([]byte, 200<<10)),
	}}
	switch kind {
	case "bind":
		m.witness = filepath.Join(outside, "realproject")
		m.fill(t, m.witness)
		mount(t, m.witness, at, "", unix.MS_BIND, "")
	case "tmpfs":
		mount(t, "rambar-inside", at, "tmpfs", 0, "size=16m")
		m.fill(t, at)
		m.witness = filepath.Join(outside, "witness")
		mount(t, at, m.witness, "", unix.MS_BIND, "")
	case "ext4":
		img := filepath.Join(outside, "stick.img")
		if err := os.WriteFile(img, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(img, 32<<20); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput(); err != nil {
			t.Fatalf("mkfs.ext4: %v %s", err, out)
		}
		if out, err := exec.Command("mount", "-o", "loop", img, at).CombinedOutput(); err != nil {
			t.Fatalf("mount -o loop: %v %s", err, out)
		}
		cleanup(t, at)
		m.fill(t, at)
		m.witness = filepath.Join(outside, "witness")
		mount(t, at, m.witness, "", unix.MS_BIND, "")
	default:
		t.Fatalf("no mount kind %q", kind)
	}
	return m
}

// mount mounts and takes the mount down when the test ends.
func mount(t testing.TB, src, at, fstype string, flags uintptr, data string) {
	t.Helper()
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(src, at, fstype, flags, data); err != nil {
		t.Fatalf("mount %s at %s: %v", src, at, err)
	}
	cleanup(t, at)
}

// cleanup takes the mount at at down (lazily) when the test ends; one
// gone already is fine.
func cleanup(t testing.TB, at string) {
	t.Cleanup(func() {
		if err := unix.Unmount(at, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
			t.Errorf("umount -l %s: %v", at, err)
		}
	})
}

func (m *Mount) fill(t testing.TB, dir string) {
	t.Helper()
	for p, c := range m.files {
		f := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Check fails t unless the mount's files are all there as they were
// written, nothing removed or added, seen from outside the disk; when is
// what the test just did.
func (m *Mount) Check(t testing.TB, when string) {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(m.witness, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(m.witness, p)
		b, err := os.ReadFile(p)
		got[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatalf("%s: the %s mount's files: %v", when, m.Kind, err)
	}
	if !maps.Equal(got, m.files) {
		t.Fatalf("%s: the files of the %s mount (outside the disk) changed: %s", when, m.Kind, diff(got, m.files))
	}
}

// Mounted reports whether the mount is still at At.
func (m *Mount) Mounted(t testing.TB) bool {
	t.Helper()
	var at, w unix.Stat_t
	if unix.Stat(m.At, &at) != nil || unix.Stat(m.witness, &w) != nil {
		return false
	}
	return at.Dev == w.Dev && at.Ino == w.Ino
}

func diff(got, want map[string]string) string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[p]; !ok {
			out = append(out, "lost "+p)
		} else if g != want[p] {
			out = append(out, "changed "+p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			out = append(out, "added "+p)
		}
	}
	return fmt.Sprint(out)
}
