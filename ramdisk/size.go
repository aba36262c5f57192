package ramdisk

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"rambar/i18n"
)

// Size is a byte count. RAMBar uses binary units everywhere: "4G" is 4 GiB,
// because ram:// devices count 512-byte sectors and TmpDisk's mix of 1000 and
// 1024 ("1 GB" becoming 1000 MiB) is a known bug this package avoids.
type Size int64

// Binary units.
const (
	Byte Size = 1
	KiB       = 1024 * Byte
	MiB       = 1024 * KiB
	GiB       = 1024 * MiB
	TiB       = 1024 * GiB
)

// SectorSize is the unit of a ram:// device's length.
const SectorSize = 512

// MinSize is the smallest disk RAMBar makes; smaller volumes cannot hold a
// file system's own metadata.
const MinSize = 1 * MiB

// MaxSize is the largest size the parser accepts: more memory than any Mac or
// PC RAMBar runs on could ever address. Plans apply the real, per-machine limit.
const MaxSize = 64 * TiB

// ErrSize is wrapped by every size parsing error.
var ErrSize = i18n.New("invalid size")

// sizeHelp ends size errors' formats so users see what is accepted (%% is
// a format's percent sign).
const sizeHelp = "use a number with a unit like 512M, 4G, 1.5GiB, 4096MiB, or a percentage of memory like 25%%"

var units = map[string]Size{
	"":  MiB, // a bare number is MiB, as in TmpDisk and the hdiutil recipe
	"b": Byte,
	"k": KiB, "kb": KiB, "kib": KiB,
	"m": MiB, "mb": MiB, "mib": MiB,
	"g": GiB, "gb": GiB, "gib": GiB,
	"t": TiB, "tb": TiB, "tib": TiB,
}

// ParseSize reads a size as a user types it: "512M", "4G", "4GiB", "1.5G",
// "4096MiB", "25%" (of physical memory, which must then be given), or a bare
// number of MiB. Results are rounded up to a whole MiB. Zero, negative,
// unknown units and sizes beyond MaxSize are refused with a one-line error.
func ParseSize(s string, physical Size) (Size, error) {
	b, err := parseBytes(s, physical)
	if err != nil {
		return 0, err
	}
	return finish(s, b)
}

// roundingNote says that a size typed in bytes that are not a whole number
// of MiB was rounded up, and why: "512K → 1 MiB: tmpfs sizes are whole
// MiB". None (a zero Note) when nothing was rounded, or for a percentage
// (never exact).
func roundingNote(typed string, z Size, fs FileSystem) Note {
	if strings.HasSuffix(strings.TrimSpace(typed), "%") {
		return Note{}
	}
	b, err := parseBytes(typed, 0)
	if err != nil || b == float64(z) {
		return Note{}
	}
	if fs == "" {
		return newNote(Info, "%s → %s: RAM disk sizes are whole MiB", strings.TrimSpace(typed), z)
	}
	return newNote(Info, "%s → %s: %s sizes are whole MiB", strings.TrimSpace(typed), z, fs.Label())
}

// unitNote says how a typed size was read when that may not be what was
// meant: a decimal-looking unit (4GB is 4 GiB: RAMBar's units are binary),
// or a small bare number (4 is 4 MiB). None (a zero Note) otherwise.
func unitNote(typed string, z Size) Note {
	in := strings.TrimSpace(typed)
	i := strings.IndexFunc(in, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		if n, err := strconv.Atoi(in); err == nil && n < 64 {
			return newNote(Warning, "%s with no unit is %s (a bare number is MiB); %sG would be %s", in, z, in, Size(n)*GiB)
		}
		return Note{}
	}
	switch u := strings.ToLower(strings.TrimSpace(in[i:])); u {
	case "kb", "mb", "gb", "tb":
		return newNote(Warning, "%s is read as %s (%s bytes): RAMBar's units are binary, %s means %siB",
			in, z, groupDigits(int64(z)), strings.ToUpper(u), strings.ToUpper(u[:1]))
	}
	return Note{}
}

// groupDigits writes n with thousands separators: 4,294,967,296.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// parseBytes is ParseSize before rounding: the bytes asked for.
func parseBytes(s string, physical Size) (float64, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, i18n.Errorf("%w: empty; "+sizeHelp, ErrSize)
	}
	if strings.HasPrefix(in, "-") {
		return 0, i18n.Errorf("%w %q: must be positive; "+sizeHelp, ErrSize, s)
	}
	if strings.HasSuffix(in, "%") {
		p, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(in, "%")), 64)
		if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
			return 0, i18n.Errorf("%w %q: "+sizeHelp, ErrSize, s)
		}
		if p <= 0 || p > 100 {
			return 0, i18n.Errorf("%w %q: a percentage must be above 0 and at most 100", ErrSize, s)
		}
		if physical <= 0 {
			return 0, i18n.Errorf("%w %q: physical memory is unknown, so a percentage cannot be used", ErrSize, s)
		}
		return float64(physical) * p / 100, nil
	}
	i := strings.IndexFunc(in, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := in, ""
	if i >= 0 {
		num, unit = in[:i], strings.ToLower(strings.TrimSpace(in[i:]))
	}
	mult, ok := units[unit]
	if !ok {
		return 0, i18n.Errorf("%w %q: unknown unit %q; "+sizeHelp, ErrSize, s, in[i:])
	}
	if num == "" {
		return 0, i18n.Errorf("%w %q: no number; "+sizeHelp, ErrSize, s)
	}
	if unit == "" && strings.Contains(num, ".") {
		// 1.5 with no unit would be 1.5 MiB: almost surely 1.5G was meant.
		return 0, i18n.Errorf("%w %q: a number with no unit is MiB, and %s MiB is not a size anyone means; say %sG (GiB) or %sM (MiB)", ErrSize, s, num, num, num)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, i18n.Errorf("%w %q: "+sizeHelp, ErrSize, s)
	}
	return f * float64(mult), nil
}

func finish(s string, bytes float64) (Size, error) {
	if bytes <= 0 {
		return 0, i18n.Errorf("%w %q: must be more than zero; "+sizeHelp, ErrSize, s)
	}
	if bytes > float64(MaxSize) {
		return 0, i18n.Errorf("%w %q: larger than any machine's memory (limit %s)", ErrSize, s, MaxSize)
	}
	z := Size(math.Ceil(bytes/float64(MiB))) * MiB
	if z < MinSize {
		z = MinSize
	}
	return z, nil
}

// MiBs returns the size in whole MiB, rounded up.
func (z Size) MiBs() int64 { return int64((z + MiB - 1) / MiB) }

// Sectors returns the size in 512-byte sectors, as ram:// wants it
// (MiB × 2048).
func (z Size) Sectors() int64 { return int64((z + SectorSize - 1) / SectorSize) }

// String prints the size in the largest binary unit that keeps it readable:
// "4 GiB", "1.5 GiB", "512 MiB", "3 KiB", "12 B".
func (z Size) String() string {
	neg := ""
	if z < 0 {
		neg, z = "-", -z
	}
	units := []struct {
		n    Size
		name string
	}{{TiB, "TiB"}, {GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}}
	for i, u := range units {
		if z < u.n {
			continue
		}
		// Whole or quarter units print exactly in this unit; anything else
		// with one decimal, as a person writes it (5.9 GiB, not 6027 MiB),
		// unless that reads as a whole figure it is not: 4095 MiB must not
		// print as "4.0 GiB", since the 4 GiB rule turns on that one MiB.
		// Those go down a unit.
		if (z*4)%u.n == 0 {
			return neg + trimFloat(float64(z)/float64(u.n)) + " " + u.name
		}
		one := strconv.FormatFloat(float64(z)/float64(u.n), 'f', 1, 64)
		if strings.HasSuffix(one, ".0") && i+1 < len(units) {
			continue
		}
		return neg + one + " " + u.name
	}
	return fmt.Sprintf("%s%d B", neg, int64(z))
}

// Short prints the size briefly, with one decimal for GiB and TiB (none
// for a whole one: "4 GiB", as String says it) and binary unit names, as
// everything RAMBar shows is: "1.2 GiB", "512 MiB".
// The menu and the CLI's tables use it; String keeps exact figures.
func (z Size) Short() string {
	neg := ""
	if z < 0 {
		neg, z = "-", -z
	}
	switch {
	case z >= TiB:
		return neg + oneDecimal(z, TiB) + " TiB"
	case z >= GiB:
		return neg + oneDecimal(z, GiB) + " GiB"
	case z >= MiB:
		return fmt.Sprintf("%s%.0f MiB", neg, float64(z)/float64(MiB))
	case z >= KiB:
		return fmt.Sprintf("%s%.0f KiB", neg, float64(z)/float64(KiB))
	}
	return fmt.Sprintf("%s%d B", neg, int64(z))
}

// oneDecimal is z in unit u with one decimal, or none when z is a whole
// number of u.
func oneDecimal(z, u Size) string {
	if z%u == 0 {
		return strconv.FormatInt(int64(z/u), 10)
	}
	return strconv.FormatFloat(float64(z)/float64(u), 'f', 1, 64)
}

func trimFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
