//go:build darwin

package diskid

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// markAttr is the mark's attribute on macOS (APFS, HFS+ and tmpfs keep
// extended attributes; Finder shows none of them).
const markAttr = "com.rambar.disk"

// MarkAttrs are the attribute names a mark may have: never contents.
var MarkAttrs = []string{markAttr}

func getMark(dir string) ([]byte, error) {
	buf := make([]byte, maxMark+1)
	n, err := unix.Lgetxattr(dir, markAttr, buf)
	switch {
	case errors.Is(err, unix.ENOATTR), errors.Is(err, unix.ENOTSUP), errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return nil, ErrNoMark
	case errors.Is(err, unix.ERANGE) || err == nil && n > maxMark:
		return nil, fmt.Errorf("RAMBar mark on %s: longer than %d bytes", dir, maxMark)
	case err != nil:
		return nil, fmt.Errorf("read RAMBar mark on %s: %w", dir, err)
	}
	return buf[:n], nil
}

func setMark(dir string, b []byte) error {
	err := unix.Lsetxattr(dir, markAttr, b, 0)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EPERM) {
		return fmt.Errorf("write RAMBar mark on %s: %w: %w", dir, ErrNoMark, err)
	}
	if err != nil {
		return fmt.Errorf("write RAMBar mark on %s: %w", dir, err)
	}
	return nil
}

func removeMark(dir string) error {
	err := unix.Lremovexattr(dir, markAttr)
	if err != nil && !errors.Is(err, unix.ENOATTR) && !errors.Is(err, unix.ENOTSUP) {
		return fmt.Errorf("remove RAMBar mark on %s: %w", dir, err)
	}
	return nil
}
