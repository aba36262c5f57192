package i18n

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"syscall"
	"testing"

	"golang.org/x/text/language"
)

// Classes as the domain packages declare theirs (their texts are in the
// catalog: ramdisk's).
var (
	errName  = New("invalid name")
	errAdmin = New("needs administrator rights")
)

func TestErrorIsFmtErrorf(t *testing.T) {
	denied := &fs.PathError{Op: "open", Path: "/etc/x", Err: syscall.EACCES}
	for _, c := range []struct {
		format string
		args   []any
	}{
		{"invalid name", nil},
		{"%w %q: may not start with '.'", []any{errName, ".x"}},
		{"%w: %d bytes long, at most %d allowed", []any{errName, 1234, 255}},
		{"%w: pkexec refused (not authorized, or no polkit agent; run with sudo instead): %w", []any{errAdmin, denied}},
		{"%w: %s is a link of another user's", []any{errName, "/x"}},
	} {
		got, want := Errorf(c.format, c.args...), fmt.Errorf(c.format, c.args...)
		if got.Error() != want.Error() {
			t.Errorf("%q: %q, want %q", c.format, got.Error(), want.Error())
		}
		if errors.Unwrap(got) != errors.Unwrap(want) {
			t.Errorf("%q: errors.Unwrap gives %v, want %v", c.format, errors.Unwrap(got), errors.Unwrap(want))
		}
		if te, ok := Translatable(got); !ok || te.Format != c.format {
			t.Errorf("%q: not found by Translatable", c.format)
		}
	}
	if got := New("cancelled").Error(); got != "cancelled" {
		t.Errorf("New: %q", got)
	}
}

func TestErrorUnwrapsLikeFmtErrorf(t *testing.T) {
	denied := &fs.PathError{Op: "open", Path: "/etc/x", Err: syscall.EACCES}
	one := Errorf("%w %q: may not start with '.'", errName, ".x")
	if !errors.Is(one, errName) || errors.Unwrap(one) != errName {
		t.Errorf("one %%w: Is %v, Unwrap %v", errors.Is(one, errName), errors.Unwrap(one))
	}
	two := Errorf("%w: pkexec refused (not authorized, or no polkit agent; run with sudo instead): %w", errAdmin, denied)
	u, ok := two.(interface{ Unwrap() []error })
	if !ok || !slices.Equal(u.Unwrap(), []error{errAdmin, denied}) {
		t.Fatalf("two %%w: Unwrap gives %v", u)
	}
	if !errors.Is(two, errAdmin) || !errors.Is(two, syscall.EACCES) || errors.Is(two, errName) {
		t.Errorf("two %%w: errors.Is does not see both, or sees a third")
	}
	var pe *fs.PathError
	if !errors.As(two, &pe) || pe != denied {
		t.Errorf("errors.As through two %%w: %v", pe)
	}
	wrapped := fmt.Errorf("save Build: %w", one)
	if te, ok := Translatable(wrapped); !ok || te.Error() != one.Error() {
		t.Errorf("Translatable through a wrapper: %v", te)
	}
	if _, ok := Translatable(fmt.Errorf("plain: %w", syscall.EACCES)); ok {
		t.Error("a chain without a translatable error has one")
	}
}

func TestErrorSaidInTheReadersLanguage(t *testing.T) {
	de := For(language.German)
	denied := &fs.PathError{Op: "open", Path: "/etc/x", Err: syscall.EACCES}
	bad := Errorf("%w %q: may not start with '.'", errName, ".x")
	admin := Errorf("%w: pkexec refused (not authorized, or no polkit agent; run with sudo instead): %w", errAdmin, denied)
	for _, c := range []struct {
		p    *Printer
		err  error
		want string
	}{
		{de, bad, `ungültiger Name ".x": darf nicht mit '.' beginnen`},
		{de, fmt.Errorf("save Build: %w", bad), `save Build: ungültiger Name ".x": darf nicht mit '.' beginnen`},
		{de, admin, "benötigt Administratorrechte: pkexec hat abgelehnt (nicht berechtigt oder kein polkit-Agent; " +
			"verwenden Sie stattdessen sudo): open /etc/x: permission denied"},
		{de, Errorf("%w: %d bytes long, at most %d allowed", errName, 300, 255), "ungültiger Name: 300 Bytes lang, höchstens 255 erlaubt"},
		{de, errName, "ungültiger Name"},
		{de, fmt.Errorf("%w: %w", errAdmin, bad), `benötigt Administratorrechte: ungültiger Name ".x": darf nicht mit '.' beginnen`},
		{de, fmt.Errorf("restore X: %w", fmt.Errorf("%w: %w", denied, errName)), "restore X: open /etc/x: permission denied: ungültiger Name"},
		{de, fmt.Errorf("plain: %w", syscall.EACCES), "plain: permission denied"},
		{English(), bad, bad.Error()},
		{English(), Errorf("%w: %d bytes long, at most %d allowed", errName, 1234, 255), "invalid name: 1234 bytes long, at most 255 allowed"},
		{nil, admin, admin.Error()},
	} {
		if got := c.p.Err(c.err); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.err, got, c.want)
		}
	}
	if got := de.T("rambar: %s", fmt.Errorf("save Build: %w", bad)); got != `rambar: save Build: ungültiger Name ".x": darf nicht mit '.' beginnen` {
		t.Errorf("an error argument of T: %q", got)
	}
	if got := wAsV("%w: %[2]w, 25%%, %q"); got != "%v: %[2]v, 25%%, %q" {
		t.Errorf("wAsV: %q", got)
	}
}
