package darwin

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rambar/i18n"
	"rambar/ramdisk"
)

// noExecOptions are the mount options of a --noexec disk. rw is given
// explicitly: macOS 26.5 mounted a RAM disk read-only when diskutil mount was
// given -mountOptions without it (hdiutil.md, gopass PR #3527).
const noExecOptions = "rw,noexec,nosuid,nodev"

// remount mounts the new, still empty volume again where and how the plan
// asks: with noexec, nosuid and nodev, and at a mount point of the user's
// choice. diskutil erasevolume always mounts at /Volumes/NAME with the
// defaults, so:
//
//	diskutil unmount /dev/diskMs1
//	diskutil mount -mountOptions rw,noexec,nosuid,nodev [-mountPoint PATH] /dev/diskMs1
//
// Nothing is written to the volume before this (the marker files come
// after), so no file of RAMBar's is ever on it while it may run programs.
// Neither step needs administrator rights: the volume is on a disk image the
// user attached. It returns the volume's mount point afterwards.
func (e *Engine) remount(ctx context.Context, info diskInfoPlist, p ramdisk.Plan) (string, error) {
	custom := p.Options.MountPoint
	if !p.Options.NoExec && custom == "" {
		return info.MountPoint, nil
	}
	dev := info.DeviceNode
	if dev == "" {
		dev = devPath(info.DeviceIdentifier)
	}
	if _, err := e.run(ctx, "diskutil", "unmount", dev); err != nil {
		// Spotlight or fseventsd may already hold the new, empty volume:
		// forcing it off loses nothing.
		if _, ferr := e.run(ctx, "diskutil", "unmount", "force", dev); ferr != nil {
			return "", errors.Join(fmt.Errorf("diskutil unmount %s: %w", dev, toolErr(err)),
				fmt.Errorf("diskutil unmount force %s: %w", dev, toolErr(ferr)))
		}
	}
	argv := []string{"diskutil", "mount"}
	if o := remountOptions(p); o != "" {
		argv = append(argv, "-mountOptions", o)
	}
	if custom != "" {
		if err := os.Mkdir(custom, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("mkdir %s: %w", custom, err)
		}
		argv = append(argv, "-mountPoint", custom)
	}
	argv = append(argv, dev)
	if _, err := e.run(ctx, argv...); err != nil {
		return "", fmt.Errorf("diskutil mount %s: %w", dev, toolErr(err))
	}
	again, err := e.diskInfo(ctx, dev)
	if err != nil {
		return "", err
	}
	if again.MountPoint == "" || (custom != "" && again.MountPoint != custom) {
		return "", fmt.Errorf("diskutil mount %s: the volume is mounted at %q, not %q", dev, again.MountPoint, custom)
	}
	return again.MountPoint, nil
}

// spotlight turns Spotlight off on the new volume (mdutil -i off, and the
// .metadata_never_index file prepare wrote), or on when the plan asks
// (--spotlight: the file is removed and mdutil -i on runs). A failure is a
// note, not an error.
func (e *Engine) spotlight(ctx context.Context, mp string, p ramdisk.Plan) []ramdisk.Said {
	if !p.Options.Spotlight {
		return e.spotlightOff(ctx, mp)
	}
	if err := os.Remove(filepath.Join(mp, ".metadata_never_index")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return []ramdisk.Said{ramdisk.Sayf("Spotlight stays off: remove .metadata_never_index: %v", err)}
	}
	res, err := e.run(ctx, "mdutil", "-i", "on", mp)
	if err != nil {
		return []ramdisk.Said{ramdisk.Plain(fmt.Sprintf("mdutil -i on %s: %v", mp, toolErr(err)))}
	}
	if !indexingEnabled(res.Stdout) {
		return []ramdisk.Said{ramdisk.Sayf("mdutil -i on %s did not confirm indexing is enabled", mp)}
	}
	return nil
}

// checkOptions refuses what this engine cannot do with the options.
func checkOptions(p ramdisk.Plan) error {
	if p.FS == ramdisk.TmpFS && p.Options.NoExec {
		return i18n.Errorf("%w: --noexec with tmpfs on macOS (use APFS or HFS+, which RAMBar mounts noexec without a password)", ramdisk.ErrUnsupported)
	}
	return nil
}

// indexingEnabled reports whether mdutil's output says "Indexing enabled."
// for the volume (diskutil.md §13).
func indexingEnabled(out []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "Indexing enabled." {
			return true
		}
	}
	return false
}

// remountOptions are the -mountOptions of the second mount: noexec's, and
// nobrowse for a hidden disk (the attach's -nobrowse may not carry over to a
// mount diskutil makes); "" for none.
func remountOptions(p ramdisk.Plan) string {
	var o []string
	if p.Options.NoExec {
		o = append(o, noExecOptions)
	}
	if p.Hidden {
		if len(o) == 0 {
			o = append(o, "rw")
		}
		o = append(o, "nobrowse")
	}
	return strings.Join(o, ",")
}
