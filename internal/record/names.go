package record

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"strings"
)

// Names is the rule for disk names every record follows, as the
// platform's file system treats names: on Linux "Work" and "work" are two
// disks, so their records are two (exact); on macOS they are one volume,
// so they share one record (folded).
type Names struct {
	// Folded: names that differ only in letter case are one disk.
	Folded bool
}

// NamesOf is the rule of the system goos: folded on macOS, exact
// elsewhere.
func NamesOf(goos string) Names { return Names{Folded: goos == "darwin"} }

// Platform is this system's rule.
var Platform = NamesOf(runtime.GOOS)

// Same reports whether a and b name one disk.
func (n Names) Same(a, b string) bool {
	if n.Folded {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// Key is the file name, without extension, of a disk's record: its name
// (folded to lower case under a folded rule) with bytes other than ASCII
// lower-case letters, digits, '-' and '_' as %XX, so an upper-case letter
// is kept apart even on a data folder that ignores case; shortened with a
// hash when long.
func (n Names) Key(name string) string {
	if n.Folded {
		name = strings.ToLower(name)
	}
	return escape(name)
}

// Keys are the keys a disk's record may be under: Key first, then the
// other rule's (a record an older RAMBar, or the other rule, wrote).
func (n Names) Keys(name string) []string {
	other := Names{Folded: !n.Folded}.Key(name)
	if k := n.Key(name); other != k {
		return []string{k, other}
	}
	return []string{n.Key(name)}
}

func escape(name string) string {
	var b strings.Builder
	for _, c := range []byte(name) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	s := b.String()
	if len(s) > 120 {
		sum := sha256.Sum256([]byte(s))
		s = s[:80] + "-" + hex.EncodeToString(sum[:16])
	}
	return s
}
