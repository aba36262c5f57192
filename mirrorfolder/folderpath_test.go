package mirrorfolder

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckRefusesFolders: each folder the rules refuse is refused with one
// line saying why, wrapping ErrBadFolder (a missing one ErrFolderMissing
// too, and it passes with Create); an ordinary folder passes. Mount points
// are the Keeper's tests' (they mount tmpfs as root).
func TestCheckRefusesFolders(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir()) // macOS: /var is a symlink
	if err != nil {
		t.Fatal(err)
	}
	r := Rules{Data: filepath.Join(base, "data"), Home: filepath.Join(base, "home"), Homes: []string{filepath.Join(base, "sudo")},
		RAMDisks: []string{"", filepath.Join(base, "disk"), filepath.Join(base, "future", "Bad")}}
	for _, d := range []string{"data/x", "home", "sudo", "disk", "real/sub", "site"} {
		os.MkdirAll(filepath.Join(base, d), 0o755)
	}
	os.WriteFile(filepath.Join(base, "file"), []byte("a file"), 0o644)
	os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link"))
	cases := []struct{ path, want string }{
		{"relative/path", "not an absolute path"},
		{"/", "whole file system"},
		{base, "holds RAMBar's data folder"},
		{filepath.Join(base, "data", "x"), "inside RAMBar's data folder"},
		{filepath.Join(base, "home"), "holds the home folder " + filepath.Join(base, "home")},
		{filepath.Join(base, "sudo"), "holds the home folder " + filepath.Join(base, "sudo")},
		{filepath.Join(base, "disk", "sub"), "inside the RAM disk at " + filepath.Join(base, "disk")},
		{filepath.Join(base, "future"), "holds the RAM disk's mount point " + filepath.Join(base, "future", "Bad")},
		{filepath.Join(base, "file"), "it is a file, not a folder"},
		{filepath.Join(base, "link"), "it is a symlink to " + filepath.Join(base, "real")},
		{filepath.Join(base, "link", "sub"), "a folder in its path is a symlink; give the real path (" + filepath.Join(base, "real", "sub") + ")"},
		{filepath.Join(base, "link", "new"), filepath.Join(base, "link") + " in it is a symlink to " + filepath.Join(base, "real") +
			"; give the real path (" + filepath.Join(base, "real", "new") + ")"},
		{filepath.Join(base, "missing"), "it does not exist"},
	}
	for _, c := range cases {
		err := Check(c.path, r)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || !errors.Is(err, ErrBadFolder) {
			t.Errorf("%s: %v, want one line saying %q", c.path, err, c.want)
		}
		if missing := strings.HasSuffix(c.path, "missing"); missing != errors.Is(err, ErrFolderMissing) {
			t.Errorf("%s: %v: ErrFolderMissing %v, want %v", c.path, err, !missing, missing)
		}
	}
	r.Create = true
	for _, p := range []string{filepath.Join(base, "site"), filepath.Join(base, "missing", "new")} {
		if err := Check(p, r); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
