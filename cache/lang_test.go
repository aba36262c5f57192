package cache

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"rambar/i18n"
	"rambar/ramdisk"
)

// TestRefusalsInTheUsersLanguage: a cache's refusal is a sentence of the
// catalog, said whole in German, its English as it always was, and still
// ErrRefused.
func TestRefusalsInTheUsersLanguage(t *testing.T) {
	c := &Caches{Data: "/d"}
	v := ramdisk.Volume{Name: "Work", MountPoint: "/Volumes/Work"}
	tests := []struct {
		name    string
		caps    ramdisk.Caps
		english string
		german  string
	}{
		{"a mount point that goes with the disk", ramdisk.Caps{},
			"/Volumes/Work goes with the disk: eject it and make it again at a folder that stays (rambar create Work SIZE --mount-point \"/d/Volumes/Work\")",
			"/Volumes/Work verschwindet mit der Disk: wirf sie aus und erstelle sie erneut in einem bleibenden Ordner"},
		{"a mount point that stays", ramdisk.Caps{KeepsMountPoints: true},
			"eject it and make it again with RAMBar (rambar eject Work, then rambar create Work SIZE)",
			"wirf sie aus und erstelle sie mit RAMBar erneut (rambar eject Work, dann rambar create Work SIZE)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.cacheFallbackFix(v, "/h/.npm", tt.caps)
			if !errors.Is(err, ErrRefused) || !strings.HasPrefix(err.Error(), "cache target refused: /h/.npm: Work was not mounted") ||
				!strings.HasSuffix(err.Error(), tt.english) {
				t.Errorf("English: %v", err)
			}
			de := i18n.For(language.German).Err(err)
			if !strings.HasPrefix(de, "Cache-Ziel abgelehnt: /h/.npm: Work wurde nicht von diesem RAMBar") || !strings.Contains(de, tt.german) {
				t.Errorf("German: %s", de)
			}
		})
	}
}
