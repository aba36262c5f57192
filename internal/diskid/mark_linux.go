//go:build linux

package diskid

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// The mark's attribute: user.rambar where the file system keeps user
// attributes (tmpfs from Linux 6.6, ext4 on zram), else trusted.rambar,
// which only root may read or set (tmpfs before 6.6).
const (
	userAttr    = "user.rambar"
	trustedAttr = "trusted.rambar"
)

// MarkAttrs are the attribute names a mark may have: never contents.
var MarkAttrs = []string{userAttr, trustedAttr}

func getMark(dir string) ([]byte, error) {
	for _, name := range MarkAttrs {
		b, err := getAttr(dir, name)
		if err == nil {
			return b, nil
		}
		if !errors.Is(err, ErrNoMark) {
			return nil, err
		}
	}
	return nil, ErrNoMark
}

func getAttr(dir, name string) ([]byte, error) {
	buf := make([]byte, maxMark+1)
	n, err := unix.Lgetxattr(dir, name, buf)
	switch {
	case errors.Is(err, unix.ENODATA), errors.Is(err, unix.ENOTSUP), errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return nil, ErrNoMark
	case errors.Is(err, unix.ERANGE) || err == nil && n > maxMark:
		return nil, fmt.Errorf("RAMBar mark on %s: longer than %d bytes", dir, maxMark)
	case err != nil:
		return nil, fmt.Errorf("read RAMBar mark on %s: %w", dir, err)
	}
	return buf[:n], nil
}

func setMark(dir string, b []byte) error {
	err := unix.Lsetxattr(dir, userAttr, b, 0)
	if err == nil {
		unix.Lremovexattr(dir, trustedAttr) // an older mark there is not the disk's now
		return nil
	}
	if (errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EPERM)) && os.Geteuid() == 0 {
		if err = unix.Lsetxattr(dir, trustedAttr, b, 0); err == nil {
			return nil
		}
	}
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EPERM) {
		return fmt.Errorf("write RAMBar mark on %s: %w: %w", dir, ErrNoMark, err)
	}
	return fmt.Errorf("write RAMBar mark on %s: %w", dir, err)
}

func removeMark(dir string) error {
	var errs []error
	for _, name := range MarkAttrs {
		if err := unix.Lremovexattr(dir, name); err != nil && !errors.Is(err, unix.ENODATA) &&
			!errors.Is(err, unix.ENOTSUP) && !errors.Is(err, unix.EPERM) {
			errs = append(errs, fmt.Errorf("remove RAMBar mark %s on %s: %w", name, dir, err))
		}
	}
	return errors.Join(errs...)
}
