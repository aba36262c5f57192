//go:build darwin

package volicon

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// finderInfoXattr is the extended attribute that holds a file's or folder's
// 32 bytes of Finder information.
const finderInfoXattr = "com.apple.FinderInfo"

// setCustomIconFlag sets kHasCustomIcon in root's FinderInfo, keeping the
// other bytes, so Finder shows root/.VolumeIcon.icns.
func setCustomIconFlag(root string) ([]ramdisk.Said, error) {
	old := make([]byte, 32)
	n, err := unix.Getxattr(root, finderInfoXattr, old)
	if err != nil && !errors.Is(err, unix.ENOATTR) {
		return nil, fmt.Errorf("icon: read %s of %s: %w", finderInfoXattr, root, err)
	}
	if err := unix.Setxattr(root, finderInfoXattr, withCustomIcon(old[:max(n, 0)]), 0); err != nil {
		return nil, fmt.Errorf("icon: set %s of %s: %w", finderInfoXattr, root, err)
	}
	return nil, nil
}
