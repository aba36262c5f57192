//go:build linux

package tree

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rambar/internal/mounttest"
	"rambar/internal/testtree"

	"golang.org/x/sys/unix"
)

// removalDisk is a disk for the removal tests: a folder on a tmpfs of its
// own (base), with files, folders, a FIFO and symlinks to a folder and a
// file outside it beside the disk on the same tmpfs.
type removalDisk struct {
	base, root, outside string
}

func newRemovalDisk(t *testing.T) removalDisk {
	t.Helper()
	base := filepath.Join(t.TempDir(), "base")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("rambar-test-base", base, "tmpfs", 0, "size=64m"); err != nil {
		t.Fatalf("mount tmpfs (tests run as root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(base, unix.MNT_DETACH) })
	d := removalDisk{base: base, root: filepath.Join(base, "disk"), outside: filepath.Join(base, "outside")}
	testtree.Write(t, d.outside, "secret/f", "outside")
	testtree.Write(t, d.outside, "file", "outside file")
	for _, p := range []string{"top.txt", "a/b/c/d.txt", "holder/inner/x", "holder/y/z", "ro/f"} {
		testtree.Write(t, d.root, p, "disk's "+p)
	}
	if err := unix.Mkfifo(filepath.Join(d.root, "a/fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"out-dir": d.outside, "a/out-file": filepath.Join(d.outside, "file"), "holder/out": d.outside + "/secret"} {
		if err := os.Symlink(to, filepath.Join(d.root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// outsideWhole fails t unless the folder beside the disk holds what it did.
func (d removalDisk) outsideWhole(t *testing.T, when string) {
	t.Helper()
	for p, want := range map[string]string{"secret/f": "outside", "file": "outside file"} {
		if b, err := os.ReadFile(filepath.Join(d.outside, p)); err != nil || string(b) != want {
			t.Fatalf("%s: %s outside the disk: %q, %v", when, p, b, err)
		}
	}
}

// left lists the paths under root (folders with a trailing /), not
// entering the mount at skip.
func left(t *testing.T, root, skip string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		if p == skip {
			return filepath.SkipDir
		}
		return nil
	})
	return out
}

// TestRemovalsLeaveMountsInside: a second tmpfs, a bind mount of a folder
// of another file system, a loop-mounted ext4 image, a bind mount of a
// folder of the disk's own file system and a file bind-mounted over a
// file, each inside a disk (at its top and deep down): emptying the disk,
// removing the folder holding the mount by descriptor and by path remove
// everything else, symlinks to outside the disk among it (never followed),
// and leave the mount point with what it holds, with a *MountError naming
// it, with openat2 and without it (where the device and the mount id
// tell). The check made before anything is removed names it too.
func TestRemovalsLeaveMountsInside(t *testing.T) {
	kinds := append(slices.Clone(mounttest.Kinds), "same-fs bind", "file bind")
	for _, kind := range kinds {
		for _, at := range []string{"mnt", "holder/inner/mnt"} {
			for _, how := range []string{"Empty", "RemoveAt", "RemoveAll"} {
				for _, o := range withOpenat2 {
					t.Run(kind+"/"+at+"/"+how+"/"+o.name, func(t *testing.T) {
						useWalk(t, o.walk)
						removeAroundMount(t, kind, at, how)
					})
				}
			}
		}
	}
}

func removeAroundMount(t *testing.T, kind, at, how string) {
	d := newRemovalDisk(t)
	mp := filepath.Join(d.root, at)
	var check func(when string)
	bind := false
	switch kind {
	case "same-fs bind":
		testtree.Write(t, d.outside, "bound/kept", "outside, same fs")
		bindAt(t, filepath.Join(d.outside, "bound"), mustDir(t, mp))
		check = func(when string) {
			if b, err := os.ReadFile(filepath.Join(d.outside, "bound/kept")); err != nil || string(b) != "outside, same fs" {
				t.Fatalf("%s: the bound folder's file: %q, %v", when, b, err)
			}
		}
		bind = true
	case "file bind":
		mp += ".txt"
		testtree.Write(t, d.root, strings.TrimPrefix(mp, d.root+"/"), "covered")
		bindAt(t, filepath.Join(d.outside, "file"), mp)
		check = func(string) {} // the file is outsideWhole's
		bind = true
	default:
		m := mounttest.Make(t, kind, mp)
		check = func(when string) {
			m.Check(t, when)
			if !m.Mounted(t) {
				t.Fatalf("%s: the %s mount is gone from %s", when, kind, mp)
			}
		}
	}
	want := &MountError{Path: mp, Bind: bind}
	if err := CheckNoMounts(d.root); !sameMountError(err, want) {
		t.Fatalf("check: %v, want %v", err, want)
	}
	top := strings.SplitN(strings.TrimPrefix(mp, d.root+"/"), "/", 2)[0]
	before := left(t, d.root, mp)
	var err error
	switch how {
	case "Empty":
		err = Empty(d.root, func(n string) bool { return n == "ro" })
	case "RemoveAt":
		fd, oerr := unix.Open(d.root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if oerr != nil {
			t.Fatal(oerr)
		}
		err = RemoveAt(fd, top)
		unix.Close(fd)
		want.Path = strings.TrimPrefix(mp, d.root+"/") // named relative to the folder given
	case "RemoveAll":
		err = RemoveAll(filepath.Join(d.root, top))
	}
	if !sameMountError(err, want) {
		t.Fatalf("%s: %v, want %v", how, err, want)
	}
	if !errors.Is(err, ErrMountInside) {
		t.Errorf("%v is not an ErrMountInside", err)
	}
	check(how)
	d.outsideWhole(t, how)
	// Everything else in what was removed is gone; the mount point and
	// the folders holding it stay, and what was not to be removed.
	removed := func(rel string) bool {
		if how == "Empty" {
			return rel != "ro/" && !strings.HasPrefix(rel, "ro/")
		}
		return strings.TrimSuffix(rel, "/") == top || strings.HasPrefix(rel, top+"/")
	}
	var wantLeft []string
	for _, p := range before {
		if !removed(p) {
			wantLeft = append(wantLeft, p)
		}
	}
	for p := filepath.Dir(mp); p != d.root; p = filepath.Dir(p) {
		wantLeft = append(wantLeft, strings.TrimPrefix(p, d.root+"/")+"/")
	}
	if kind == "file bind" {
		wantLeft = append(wantLeft, strings.TrimPrefix(mp, d.root+"/"))
	} else {
		wantLeft = append(wantLeft, strings.TrimPrefix(mp, d.root+"/")+"/")
	}
	slices.Sort(wantLeft)
	wantLeft = slices.Compact(wantLeft)
	if got := left(t, d.root, mp); !slices.Equal(got, wantLeft) {
		t.Errorf("%s left %v\nwant %v", how, got, wantLeft)
	}
	// Once it is unmounted, the same removal takes the rest.
	if err := unix.Unmount(mp, unix.MNT_DETACH); err != nil {
		t.Fatal(err)
	}
	if err := Empty(d.root, nil); err != nil {
		t.Fatalf("empty after the unmount: %v", err)
	}
	if got := left(t, d.root, ""); len(got) != 0 {
		t.Errorf("after the unmount, left %v", got)
	}
	d.outsideWhole(t, "after the unmount")
}

func mustDir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func sameMountError(err error, want *MountError) bool {
	var me *MountError
	return errors.As(err, &me) && *me == *want
}

// TestRemovalsWithoutMounts: a tree with no mount inside is removed whole
// (the names kept stay), symlinks to outside removed and never followed;
// a path already gone is no error; the check finds nothing.
func TestRemovalsWithoutMounts(t *testing.T) {
	d := newRemovalDisk(t)
	if err := CheckNoMounts(d.root); err != nil {
		t.Fatalf("check: %v", err)
	}
	if err := Empty(d.root, func(n string) bool { return n == "top.txt" }); err != nil {
		t.Fatal(err)
	}
	if got := left(t, d.root, ""); !slices.Equal(got, []string{"top.txt"}) {
		t.Errorf("left %v", got)
	}
	d.outsideWhole(t, "empty")
	if err := RemoveAll(d.root); err != nil {
		t.Fatal(err)
	}
	absentPath(t, d.root)
	if err := RemoveAll(d.root); err != nil {
		t.Errorf("a path already gone: %v", err)
	}
	if err := RemoveAll(filepath.Join(d.root, "below/gone")); err != nil {
		t.Errorf("a path whose folder is gone: %v", err)
	}
	d.outsideWhole(t, "remove all")
	// A symlink given to RemoveAll is removed, not what it leads to.
	link := filepath.Join(d.base, "link")
	os.Symlink(d.outside, link)
	if err := RemoveAll(link); err != nil {
		t.Fatal(err)
	}
	absentPath(t, link)
	d.outsideWhole(t, "remove a symlink")
	// Empty is refused a symlink in place of its folder.
	os.Symlink(d.outside, link)
	if err := Empty(link, nil); !errors.Is(err, unix.ELOOP) && !errors.Is(err, unix.ENOTDIR) {
		t.Errorf("empty through a symlink: %v", err)
	}
	d.outsideWhole(t, "empty a symlink")
}

func absentPath(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there (%v)", p, err)
	}
}

// TestRemovalNamesWhatItCannotRemove: a path that cannot be removed (a
// file made immutable) is named in the error, with the verb; the rest is
// removed.
func TestRemovalNamesWhatItCannotRemove(t *testing.T) {
	d := newRemovalDisk(t)
	f := filepath.Join(d.root, "a/b/c/d.txt")
	if err := setFlags(f, true); err != nil {
		t.Fatalf("chattr +i: %v", err)
	}
	t.Cleanup(func() { setFlags(f, false) })
	err := Empty(d.root, nil)
	if err == nil || !strings.Contains(err.Error(), "remove "+f+": ") {
		t.Fatalf("got %v, want the path named", err)
	}
	if got := left(t, d.root, ""); !slices.Equal(got, []string{"a/", "a/b/", "a/b/c/", "a/b/c/d.txt"}) {
		t.Errorf("left %v", got)
	}
}

// setFlags makes the file at p immutable (FS_IMMUTABLE_FL) or not.
func setFlags(p string, immutable bool) error {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	v := 0
	if immutable {
		v = 0x10 // FS_IMMUTABLE_FL
	}
	return unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, v)
}
