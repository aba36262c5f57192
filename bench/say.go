package bench

import (
	"fmt"
	"math"
	"strings"

	"rambar/i18n"
	"rambar/internal/textwidth"
)

// tongue is the language a report is worded in: a front end's Speaker
// (its catalog), or English as fmt writes it (nil), which is also what
// --json, the chart and summary files hold.
type tongue struct{ sp i18n.Speaker }

// T says a message: format is its English text, the catalog's key.
func (t tongue) T(format string, args ...any) string { return i18n.Say(t.sp, format, args...) }

// num writes a figure with prec decimals: in English 4,722 (thousands
// grouped when prec is 0), 3.1, 0.750; in another language as it writes
// numbers (4.722 and 0,750 in German).
func (t tongue) num(v float64, prec int) string {
	switch {
	case t.sp == nil && prec == 0:
		return thousands(v)
	case t.sp == nil:
		return fmt.Sprintf("%.*f", prec, v)
	case prec == 0:
		return t.T("%.0f", math.Round(v))
	case prec == 1:
		return t.T("%.1f", v)
	}
	return t.T("%.3f", v)
}

// name is a target's name as a person reads it: the home folder's disk
// named in t's language, any other as it is.
func (t tongue) name(s string) string {
	if s == homeDiskName {
		return t.T("Home disk")
	}
	return s
}

// words is a phrase or sentence kept as its English format and arguments
// (Result's reasons and notes, a row's label), said in a language when it
// is printed: an argument that is a figure is written as the language
// writes numbers.
type words struct {
	format string
	args   []any
}

func wordsOf(format string, args ...any) *words { return &words{format, args} }

// String is the English text.
func (w *words) String() string { return w.in(tongue{}) }

// in is w in t's language.
func (w *words) in(t tongue) string {
	args := make([]any, len(w.args))
	for i, a := range w.args {
		if f, ok := a.(figure); ok {
			a = t.num(float64(f), 0)
		}
		args[i] = a
	}
	return t.T(w.format, args...)
}

// figure is a whole number a phrase shows grouped by thousands: "2,900".
type figure float64

// String is the figure in English.
func (f figure) String() string { return thousands(float64(f)) }

// sayAll says each of ws in t's language, joined by "; " (a list of
// reasons or notes, each a message of its own).
func sayAll(t tongue, ws []*words) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.in(t)
	}
	return strings.Join(out, "; ")
}

// width is how many columns s takes in a monospace font (a Chinese or
// Japanese character two).
func width(s string) int { return textwidth.Width(s) }
