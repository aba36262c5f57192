//go:build !darwin

package disks

// setCustomIconFlag does nothing off macOS: Linux file managers do not read
// .VolumeIcon.icns (nor FinderInfo), so the file is all there is; a note says so.
func setCustomIconFlag(string) ([]string, error) {
	return []string{"icon: " + volumeIconName + " written; only macOS's Finder shows it"}, nil
}
