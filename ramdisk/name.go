package ramdisk

import (
	"rambar/i18n"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameBytes is the longest volume name, in UTF-8 bytes, that Finder,
// diskutil and Linux path components all accept.
const MaxNameBytes = 255

// ErrName is wrapped by every name validation error.
var ErrName = i18n.New("invalid name")

// ValidateName checks a volume name: what Finder and diskutil accept, Unicode
// included. It refuses empty names, "/" and ":" (path separators on macOS's two
// layers), control characters, a leading "." (a hidden mount point), invalid
// UTF-8, and names over MaxNameBytes. Whether the name is already mounted is
// checked by NewPlan, which knows the mounted volumes.
func ValidateName(name string) error {
	switch {
	case name == "":
		return i18n.Errorf("%w: empty; give the disk a name like Scratch", ErrName)
	case !utf8.ValidString(name):
		return i18n.Errorf("%w %q: not valid UTF-8", ErrName, name)
	case len(name) > MaxNameBytes:
		return i18n.Errorf("%w: %d bytes long, at most %d allowed", ErrName, len(name), MaxNameBytes)
	case strings.HasPrefix(name, "."):
		return i18n.Errorf("%w %q: may not start with '.'", ErrName, name)
	case strings.ContainsAny(name, "/:"):
		return i18n.Errorf("%w %q: may not contain '/' or ':'", ErrName, name)
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return i18n.Errorf("%w %q: may not contain control characters", ErrName, name)
		}
	}
	if strings.TrimSpace(name) != name {
		return i18n.Errorf("%w %q: leading or trailing spaces", ErrName, name)
	}
	return nil
}
