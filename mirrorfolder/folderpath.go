package mirrorfolder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"rambar/tree"
)

// ErrBadFolder: a folder that cannot be mirrored (the error says why).
var ErrBadFolder = errors.New("cannot be mirrored")

// ErrFolderMissing: the folder does not exist (and Rules.Create was
// not given); it is also an ErrBadFolder. Callers add how to go on where
// they can be followed (create's --create-folder, an eject's --force).
var ErrFolderMissing error = folderMissing{}

type folderMissing struct{}

func (folderMissing) Error() string        { return "it does not exist" }
func (folderMissing) Is(target error) bool { return target == ErrBadFolder }

// Rules are what a mirror folder is checked against.
type Rules struct {
	// Data is RAMBar's data folder; Home the user's home.
	Data, Home string
	// Homes are more homes held as a whole to refuse (under sudo: the
	// invoking user's, besides root's).
	Homes []string
	// RAMDisks are the mount points of RAM disks, mounted or about to be
	// (the disk being made included).
	RAMDisks []string
	// Create allows a missing folder (it is made at load).
	Create bool
}

// Check checks that path can be a Mirror folder: an absolute, real
// (no symlink in it) path of a folder, not "/", not holding RAMBar's data
// folder or the home as a whole, not inside a RAM disk or RAMBar's data
// folder, not holding a RAM disk's mount point (RAMDisks, the one about to
// be made included), neither a mount point nor holding one. A missing folder passes
// only with r.Create. Each refusal is one line saying why, wrapping
// ErrBadFolder.
func Check(path string, r Rules) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("mirror folder %s: %s: %w", path, fmt.Sprintf(format, a...), ErrBadFolder)
	}
	if !filepath.IsAbs(path) {
		return bad("not an absolute path")
	}
	clean := filepath.Clean(path)
	if clean == "/" {
		return bad("that is the whole file system; mirror a folder inside it")
	}
	// A symlink anywhere in the path: say where it points.
	existing, missing := clean, false
	for {
		fi, err := os.Lstat(existing)
		if err == nil {
			if fi.Mode()&fs.ModeSymlink != 0 {
				to, _ := filepath.EvalSymlinks(existing)
				what := "it is a symlink"
				if existing != clean {
					what = existing + " in it is a symlink"
				}
				return bad("%s to %s; give the real path (%s)", what, to, realOf(clean))
			}
			if existing == clean && !fi.IsDir() {
				return bad("it is a file, not a folder")
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return bad("%v", err)
		}
		missing = missing || existing == clean
		existing = filepath.Dir(existing)
	}
	if real, err := filepath.EvalSymlinks(existing); err == nil && real != existing {
		return bad("a folder in its path is a symlink; give the real path (%s)", realOf(clean))
	}
	within := func(p, dir string) bool {
		dir = filepath.Clean(dir)
		return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
	}
	if r.Data != "" && within(filepath.Clean(r.Data), clean) {
		return bad("it holds RAMBar's data folder %s, which a write-back would replace", r.Data)
	}
	if r.Data != "" && within(clean, r.Data) {
		return bad("it is inside RAMBar's data folder %s", r.Data)
	}
	for _, h := range append([]string{r.Home}, r.Homes...) {
		if h != "" && within(filepath.Clean(h), clean) {
			return bad("it holds the home folder %s as a whole; mirror a folder inside it", h)
		}
	}
	for _, d := range r.RAMDisks {
		switch {
		case d == "":
		case within(clean, d):
			return bad("it is inside the RAM disk at %s", d)
		case within(filepath.Clean(d), clean):
			// Also the disk being made: its mount point would be in the folder.
			return bad("it holds the RAM disk's mount point %s", d)
		}
	}
	mounts, err := tree.MountPoints()
	if err != nil {
		return bad("cannot list mount points: %v", err)
	}
	for _, m := range mounts {
		switch {
		case m == clean:
			return bad("it is the mount point of another file system; mirror a folder inside it")
		case within(m, clean):
			return bad("it holds %s, a mount point of another file system", m)
		}
	}
	if missing && !r.Create {
		return fmt.Errorf("mirror folder %s: %w", path, ErrFolderMissing)
	}
	return nil
}

// realOf is path with its symlinks resolved, as far as it exists.
func realOf(path string) string {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if p == "/" || p == "." {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}
