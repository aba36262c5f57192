package ramdisk

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"golang.org/x/text/language"

	"rambar/i18n"
)

// TestBusyErrorSaidWhole: a BusyError's text is what it was in English,
// it is ErrBusy and its tool's failure, and it is said whole in another
// language, the holders and the tool's words as they are.
func TestBusyErrorSaidWhole(t *testing.T) {
	held := []Holder{{PID: 42, Command: "vim"}, {PID: 7, Command: "Finder"}}
	de := i18n.For(language.German)
	for _, c := range []struct {
		e           *BusyError
		english, de string
	}{
		{&BusyError{Volume: "A"}, "A is busy; close them or eject with --force",
			"A wird benutzt; schließen Sie, was sie benutzt, oder werfen Sie sie mit --force aus"},
		{&BusyError{Volume: "A", Err: syscall.EBUSY}, "A is busy; close them or eject with --force (device or resource busy)",
			"A wird benutzt; schließen Sie, was sie benutzt, oder werfen Sie sie mit --force aus (device or resource busy)"},
		{&BusyError{Volume: "A", Holders: held}, "A is busy, held by vim (pid 42), Finder (pid 7); close them or eject with --force",
			"A wird benutzt, von vim (pid 42), Finder (pid 7); schließen Sie diese oder werfen Sie sie mit --force aus"},
		{&BusyError{Volume: "A", Holders: held, Err: syscall.EBUSY},
			"A is busy, held by vim (pid 42), Finder (pid 7); close them or eject with --force (device or resource busy)",
			"A wird benutzt, von vim (pid 42), Finder (pid 7); schließen Sie diese oder werfen Sie sie mit --force aus (device or resource busy)"},
	} {
		wrapped := fmt.Errorf("eject A: %w", c.e)
		if got := c.e.Error(); got != c.english {
			t.Errorf("Error() = %q, want %q", got, c.english)
		}
		if !errors.Is(wrapped, ErrBusy) || (c.e.Err != nil) != errors.Is(wrapped, syscall.EBUSY) {
			t.Errorf("%q: not ErrBusy, or not its tool's failure", c.english)
		}
		if got := de.Err(wrapped); got != "eject A: "+c.de {
			t.Errorf("German: %q, want %q", got, "eject A: "+c.de)
		}
		if got := i18n.English().Err(wrapped); got != wrapped.Error() {
			t.Errorf("English: %q", got)
		}
	}
}
