package i18n

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/text/language"
)

// TestDesktopEntryIsTranslated: the Linux desktop entry (make install puts
// it in the application menu) says its Name, GenericName and Comment in
// every language RAMBar speaks, as the catalog says them (the name stays
// RAMBar: a brand).
func TestDesktopEntryIsTranslated(t *testing.T) {
	b, err := os.ReadFile("../packaging/linux/rambar.desktop")
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			keys[k] = v
		}
	}
	for _, tag := range Languages {
		if tag == language.English {
			continue
		}
		loc := DesktopLocale(tag)
		if keys["Name["+loc+"]"] != "RAMBar" {
			t.Errorf("Name[%s] is %q", loc, keys["Name["+loc+"]"])
		}
		for _, k := range []string{"GenericName", "Comment"} {
			want, ok := Lookup(tag, keys[k])
			if !ok || keys[k+"["+loc+"]"] != want {
				t.Errorf("%s[%s] is %q, want the catalog's %q", k, loc, keys[k+"["+loc+"]"], want)
			}
		}
	}
}
