package ramdisk

import (
	"errors"
	"testing"
)

func TestDecodeSettingsBad(t *testing.T) {
	tests := []struct {
		name string
		data string
		want error
	}{
		{"empty", "", ErrSettingsCorrupt},
		{"not a plist", "hello", ErrSettingsCorrupt},
		{"no version", `<plist version="1.0"><dict><key>Presets</key><array/></dict></plist>`, ErrSettingsCorrupt},
		{"version zero", `<plist version="1.0"><dict><key>Version</key><integer>0</integer></dict></plist>`, ErrSettingsCorrupt},
		{"version a string", `<plist version="1.0"><dict><key>Version</key><string>2</string></dict></plist>`, ErrSettingsCorrupt},
		{"v1 unknown format", `<plist version="1.0"><dict><key>Version</key><integer>1</integer><key>Presets</key><array><dict><key>Name</key><string>A</string><key>SizeMiB</key><integer>1</integer><key>Format</key><string>FAT32</string></dict></array></dict></plist>`, ErrSettingsCorrupt},
		{"newer", `<plist version="1.0"><dict><key>Version</key><integer>99</integer></dict></plist>`, ErrSettingsNewer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := DecodeSettings([]byte(tt.data)); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}
