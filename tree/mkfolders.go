package tree

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// MakeFolders makes each folder (clean relative paths, ramdisk.CheckFolder)
// under root, part by part through directory descriptors: mkdirat, then
// openat with O_NOFOLLOW, so a symlink on the disk (a restored one, or one
// someone put there) is never followed out of it. Folders already there are
// fine; a part that is a file or a link is not made, and the error names
// it. Every folder is tried even when one fails.
func MakeFolders(root string, folders []string) error {
	if len(folders) == 0 {
		return nil
	}
	if err := ramdisk.CheckFolders(folders); err != nil {
		return err
	}
	rootFD, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("make folders on %s: open: %w", root, err)
	}
	defer unix.Close(rootFD)
	var errs []error
	for _, f := range folders {
		if err := makeFolder(rootFD, f); err != nil {
			errs = append(errs, fmt.Errorf("folder %s not made on %s: %w", f, root, err))
		}
	}
	return errors.Join(errs...)
}

// makeFolder makes one relative folder under the directory fd.
func makeFolder(fd int, rel string) error {
	cur, err := unix.Dup(fd)
	if err != nil {
		return err
	}
	for _, part := range strings.Split(rel, "/") {
		if err := unix.Mkdirat(cur, part, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			unix.Close(cur)
			return fmt.Errorf("mkdir %s: %w", part, err)
		}
		next, err := unix.Openat(cur, part, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(cur)
		switch {
		case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR):
			return fmt.Errorf("%s is a link or a file, not a folder", part)
		case err != nil:
			return fmt.Errorf("open %s: %w", part, err)
		}
		cur = next
	}
	return unix.Close(cur)
}
