package tree

import (
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// MountsBeneath lists, from the mount table, the mount points strictly
// beneath the folder root (a disk's mount point): other file systems and
// bind mounts inside it, sorted, each once. root is taken as given and
// with its symlinks resolved (the table names real paths).
func MountsBeneath(root string) ([]string, error) {
	all, err := MountPoints()
	if err != nil {
		return nil, err
	}
	roots := []string{filepath.Clean(root)}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != roots[0] {
		roots = append(roots, real)
	}
	var out []string
	for _, m := range all {
		m = filepath.Clean(m)
		for _, r := range roots {
			if strings.HasPrefix(m, strings.TrimSuffix(r, "/")+"/") {
				out = append(out, filepath.Join(roots[0], strings.TrimPrefix(m, r)))
				break
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// CheckNoMounts returns a *MountError naming the first mount point beneath
// root (see MountsBeneath), or nil when there is none: what a removal of
// everything on a disk asks before it changes anything.
func CheckNoMounts(root string) error {
	ms, err := MountsBeneath(root)
	if err != nil || len(ms) == 0 {
		return err
	}
	e := &MountError{Path: ms[0], More: len(ms) - 1}
	var top, at unix.Stat_t
	if unix.Stat(root, &top) == nil && unix.Stat(ms[0], &at) == nil {
		e.Bind = top.Dev == at.Dev
	}
	return e
}
