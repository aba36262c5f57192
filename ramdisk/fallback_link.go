package ramdisk

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"rambar/i18n"
)

// PlaceFallbackLink makes FallbackLink in the folder open as fd (dir, for
// messages) lead to target: kept when it does already; a link of uid's
// that leads elsewhere (an older data folder) is replaced; anything else
// there is refused (ErrExists). Nothing is followed: the link is read,
// removed and made relative to fd. Made as root, it is given to uid:gid.
func PlaceFallbackLink(fd int, dir, target string, uid, gid int) error {
	link := filepath.Join(dir, FallbackLink)
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(fd, FallbackLink, buf)
	switch {
	case err == nil && string(buf[:n]) == target:
		return nil
	case err == nil:
		var st unix.Stat_t
		if err := unix.Fstatat(fd, FallbackLink, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || int(st.Uid) != uid {
			return i18n.Errorf("%w: %s is a link of another user's", ErrExists, link)
		}
		if err := unix.Unlinkat(fd, FallbackLink, 0); err != nil {
			return &os.PathError{Op: "unlink", Path: link, Err: err}
		}
	case !errors.Is(err, unix.ENOENT):
		return i18n.Errorf("%w: %s is there and is not RAMBar's link", ErrExists, link)
	}
	if err := unix.Symlinkat(target, fd, FallbackLink); err != nil {
		return &os.PathError{Op: "symlink", Path: link, Err: err}
	}
	if os.Geteuid() == 0 { // as the user (pkexec), the link is theirs already
		if err := unix.Fchownat(fd, FallbackLink, uid, gid, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return &os.PathError{Op: "chown", Path: link, Err: err}
		}
	}
	return nil
}
