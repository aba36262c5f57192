//go:build !darwin

package volicon

import "rambar/ramdisk"

// setCustomIconFlag does nothing off macOS: Linux file managers do not read
// .VolumeIcon.icns (nor FinderInfo), so the file is all there is; a note says so.
func setCustomIconFlag(string) ([]ramdisk.Said, error) {
	return []ramdisk.Said{ramdisk.Sayf("icon: %s written; only macOS's Finder shows it", FileName)}, nil
}
