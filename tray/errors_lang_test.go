package tray

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/language"

	"rambar/i18n"
	"rambar/ramdisk"
)

// TestFailuresInTheUsersLanguage: a failure's notification text (short)
// says the error's sentence in the menu's language, its first clause, cut
// between letters; in English it is the error's text as it was.
func TestFailuresInTheUsersLanguage(t *testing.T) {
	de, ja := i18n.For(language.German), i18n.For(language.Japanese)
	bad := fmt.Errorf("create: %w", ramdisk.ValidateName(".x"))
	if got, want := short(de, bad), `create: ungültiger Name ".x": darf nicht mit '.' beginnen`; got != want {
		t.Errorf("German: %q, want %q", got, want)
	}
	if got, want := short(i18n.English(), bad), `create: invalid name ".x": may not start with '.'`; got != want {
		t.Errorf("English: %q, want %q", got, want)
	}
	_, err := ramdisk.ParseSize("9Q", 16*ramdisk.GiB)
	if got, want := short(de, err), `ungültige Größe "9Q": unbekannte Einheit "Q"`; got != want {
		t.Errorf("German, first clause: %q, want %q", got, want)
	}
	long := &ramdisk.BusyError{Volume: strings.Repeat("Arbeit", 8), Holders: []ramdisk.Holder{{PID: 42, Command: "vim"}}}
	if got := short(ja, long); !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || !strings.Contains(got, " は vim (pid 42) が") {
		t.Errorf("Japanese, cut: %q", got)
	}
}
