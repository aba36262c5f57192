//go:build linux

package linux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rambar/i18n"
	"rambar/ramdisk"
)

// customPrefix starts the tmpfs source of a disk mounted at a folder of the
// user's choice: "rambar:NAME". Names never hold ':', so it reads back
// unambiguously, and List finds such a disk wherever it is mounted.
const customPrefix = mountSource + ":"

// optionFlags are the mount flags the plan's options add: noexec for
// --noexec (nosuid and nodev are always on).
func optionFlags(p ramdisk.Plan) []string {
	if p.Options.NoExec {
		return []string{"noexec"}
	}
	return nil
}

// customMountPoint is the folder of the user's choice the plan mounts at,
// "" for the mount root.
func customMountPoint(p ramdisk.Plan, root string) string {
	c := p.Options.MountPoint
	if c == "" || filepath.Clean(p.MountPoint) != filepath.Clean(c) || filepath.Clean(c) == filepath.Join(root, p.Name) {
		return ""
	}
	return filepath.Clean(c)
}

// checkCustom refuses what cannot be mounted at a folder of one's choice,
// and makes an absent folder as the user (not through pkexec), so it stays
// theirs after the disk is ejected.
func checkCustom(p ramdisk.Plan, fs ramdisk.FileSystem, dir string) error {
	if fs == ramdisk.ZRAM {
		return i18n.Errorf("%w: --mount-point with zram (RAMBar finds zram disks under its mount root only); use tmpfs", ramdisk.ErrUnsupported)
	}
	if err := os.Mkdir(dir, rootMode); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("mkdir %s: %w", dir, err)
	}
	return nil
}

// tmpfsSource is the source a tmpfs is mounted from: "rambar" under the
// mount root, "rambar:NAME" elsewhere.
func tmpfsSource(p ramdisk.Plan, custom string) string {
	if custom != "" {
		return customPrefix + p.Name
	}
	return mountSource
}

// customMount reports whether m is a RAMBar tmpfs at a folder of the user's
// choice, and its disk's name.
func customMount(m mountEntry) (string, bool) {
	if m.FSType != "tmpfs" || !strings.HasPrefix(m.Source, customPrefix) {
		return "", false
	}
	name := strings.TrimPrefix(m.Source, customPrefix)
	if ramdisk.ValidateName(name) != nil {
		return "", false
	}
	return name, true
}
