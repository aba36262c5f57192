package darwin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"rambar/i18n"
	"rambar/ramdisk"
)

// leaveFallback makes the link DIR/Caches -> p.CacheFallback in the folder
// of the user's choice the disk is about to be mounted at (made when it is
// absent), so the disk's cache targets lead to an ordinary folder whenever
// it is gone. /Volumes/NAME cannot hold it (macOS removes it with the
// disk, and only root may make folders there): a plan with a fallback and
// no mount point of its own is refused. The folder must be a real folder
// of the user's, empty but for such a link (ramdisk.CheckEmptyMountPoint);
// the link is read and made relative to the folder's descriptor, never
// followed.
func (e *Engine) leaveFallback(p ramdisk.Plan) error {
	dir, target := p.Options.MountPoint, p.CacheFallback
	if dir == "" {
		return i18n.Errorf("%w: caches on %s need a mount point that stays when the disk is gone (macOS removes /Volumes/%s with the disk): give --mount-point", ramdisk.ErrUnsupported, p.Name, p.Name)
	}
	if !filepath.IsAbs(target) {
		return fmt.Errorf("cache fallback %q is not an absolute path", target)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("mkdir %s: %w", dir, err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%w: mount point %s: %v", ramdisk.ErrOption, dir, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || int(st.Uid) != e.uid {
		return i18n.Errorf("%w: mount point %s belongs to someone else", ramdisk.ErrOption, dir)
	}
	if err := ramdisk.CheckEmptyMountPoint(dir, e.uid); err != nil {
		return fmt.Errorf("%w: mount point %s: %v", ramdisk.ErrOption, dir, err)
	}
	return ramdisk.PlaceFallbackLink(fd, dir, target, e.uid, e.gid)
}
