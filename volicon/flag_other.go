//go:build !darwin

package volicon

// setCustomIconFlag does nothing off macOS: Linux file managers do not read
// .VolumeIcon.icns (nor FinderInfo), so the file is all there is; a note says so.
func setCustomIconFlag(string) ([]string, error) {
	return []string{"icon: " + FileName + " written; only macOS's Finder shows it"}, nil
}
