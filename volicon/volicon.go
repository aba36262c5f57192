// Package volicon gives a mounted disk a custom icon: the image (a .icns as
// it is, a .png converted) written as the root's .VolumeIcon.icns and, on
// macOS, the custom-icon flag set in the root folder's FinderInfo.
package volicon

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackmordaunt/icns/v3"
	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// FileName is the file Finder shows as a volume's icon when the root
// folder's FinderInfo has the custom-icon flag.
const FileName = ".VolumeIcon.icns"

// hasCustomIcon is kHasCustomIcon, a bit of the Finder flags: the 16-bit
// big-endian field at bytes 8-9 of FinderInfo (FileInfo.finderFlags and
// FolderInfo.finderFlags alike).
const hasCustomIcon = 0x0400

// maxIconBytes bounds the icon file read.
const maxIconBytes = 16 << 20

// Set writes the icon file (a .icns as it is; a .png converted to
// .icns) to root/.VolumeIcon.icns and, on macOS, sets the custom-icon flag
// in the root folder's FinderInfo, keeping its other bytes (no SetFile
// needed). Elsewhere the flag is not set and a note says so: Linux file
// managers do not read .VolumeIcon.icns. The icon file is untrusted input:
// bounded, and a .png must decode.
func Set(root, icon string) (notes []ramdisk.Said, err error) {
	data, err := iconData(icon)
	if err != nil {
		return nil, err
	}
	if err := writeNew(root, FileName, data); err != nil {
		return nil, fmt.Errorf("icon: write %s on %s: %w", FileName, root, err)
	}
	return setCustomIconFlag(root)
}

// withCustomIcon returns FinderInfo (32 bytes; shorter or missing input is
// padded with zeros) with kHasCustomIcon set and every other bit as it was.
func withCustomIcon(info []byte) []byte {
	out := make([]byte, 32)
	copy(out, info)
	flags := uint16(out[8])<<8 | uint16(out[9])
	flags |= hasCustomIcon
	out[8], out[9] = byte(flags>>8), byte(flags)
	return out
}

// Check reads the icon file as a disk's making will (a .icns with
// its magic, a .png that decodes and converts) and says why it cannot be
// used, wrapping ramdisk.ErrOption: an unreadable or broken image is
// refused before anything is made.
func Check(path string) error {
	if _, err := iconData(path); err != nil {
		return fmt.Errorf("%w: %v", ramdisk.ErrOption, err)
	}
	return nil
}

// iconData reads a .icns (checked for its "icns" magic) or converts a .png.
func iconData(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("icon: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxIconBytes+1))
	if err != nil {
		return nil, fmt.Errorf("icon: read %s: %w", path, err)
	}
	if len(b) > maxIconBytes {
		return nil, fmt.Errorf("icon: %s is over %d MiB", path, maxIconBytes>>20)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".icns":
		if !bytes.HasPrefix(b, []byte("icns")) {
			return nil, fmt.Errorf("icon: %s is not an .icns file", path)
		}
		return b, nil
	case ".png":
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("icon: %s: png: %w", path, err)
		}
		var out bytes.Buffer
		if err := icns.Encode(&out, img); err != nil {
			return nil, fmt.Errorf("icon: convert %s to icns: %w", path, err)
		}
		return out.Bytes(), nil
	}
	return nil, fmt.Errorf("icon: %s: give a .icns or .png file", path)
}

// writeNew writes data to root/name through the root's descriptor, never
// following a link there, replacing a plain file of RAMBar's earlier write.
func writeNew(root, name string, data []byte) error {
	dfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(root, name))
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
