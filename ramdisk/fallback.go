package ramdisk

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// FallbackLink is the one entry RAMBar leaves in a mount point's folder on
// the file system below the disk (see Plan.CacheFallback): a symbolic link,
// named like the disk's own cache folder, to the folder the disk's cache
// targets fall back to. While the disk is mounted it hides the link, and
// MOUNTPOINT/Caches/ID is the disk's folder; once the disk is gone for any
// reason (eject, crash, reboot, umount by hand) the same path leads through
// the link to an ordinary folder, with nothing for RAMBar to do.
const FallbackLink = "Caches"

// CheckEmptyMountPoint says whether the folder dir may have a disk mounted
// on it: it holds nothing, or only FallbackLink as a symbolic link owned by
// uid (any owner when uid < 0). Nothing in it is followed. The error says
// what is in the way.
func CheckEmptyMountPoint(dir string, uid int) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return CheckEmptyDir(d, uid)
}

// CheckEmptyDir is CheckEmptyMountPoint of an open folder (the one a disk
// is to be mounted on, whatever its path leads to meanwhile).
func CheckEmptyDir(d *os.File, uid int) error {
	names, err := d.Readdirnames(3)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	switch {
	case len(names) == 0:
		return nil
	case len(names) > 1 || names[0] != FallbackLink:
		return errors.New("it is not empty")
	}
	st, err := os.Lstat(filepath.Join(d.Name(), FallbackLink))
	switch {
	case err != nil:
		return err
	case st.Mode()&os.ModeSymlink == 0:
		return fmt.Errorf("it is not empty (%s is not RAMBar's link)", FallbackLink)
	case uid >= 0 && owner(st) != uid:
		return fmt.Errorf("it is not empty (%s is a link of another user's)", FallbackLink)
	}
	return nil
}
