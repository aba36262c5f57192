package selftest

import (
	"fmt"
	"path/filepath"
	"strings"

	"rambar/i18n"
	"rambar/internal/textwidth"
)

// tongue is the language the summary is worded in: a front end's Speaker,
// or English as fmt writes it (nil), as report.json and summary.txt hold
// it.
type tongue struct{ sp i18n.Speaker }

// T says a message: format is its English text, the catalog's key.
func (t tongue) T(format string, args ...any) string { return i18n.Say(t.sp, format, args...) }

// Phrase is an argument of a check's detail that is said in the detail's
// language (a front end's own message inside one of the self-test's).
type Phrase interface {
	In(sp i18n.Speaker) string
}

// count is a number of things in a check's detail, said by a counting
// message of the catalog ("%d disks": "1 disk", "3 disks").
type count struct {
	n      int
	format string
}

// counted is n things, said by format; the catalog's tests find it.
func counted(n int, format string) count { return count{n, format} }

// String is the count in English.
func (c count) String() string { return i18n.Source(c.format, c.n) }

// In is the count in sp's language.
func (c count) In(sp i18n.Speaker) string { return tongue{sp}.T(c.format, c.n) }

// detailIn is a check's detail in t's language: as it was written when it
// was not made from a format (a report read back).
func detailIn(t tongue, c Check) string {
	if t.sp == nil || c.Format == "" || fmt.Sprintf(c.Format, c.Args...) != c.Detail {
		return c.Detail
	}
	args := make([]any, len(c.Args))
	for i, a := range c.Args {
		if p, ok := a.(Phrase); ok {
			a = p.In(t.sp)
		}
		args[i] = a
	}
	return t.T(c.Format, args...)
}

// status is a check's outcome as the summary shows it: pass, FAIL, skip.
func (t tongue) status(s Status) string {
	switch s {
	case Pass:
		return t.T("pass")
	case Fail:
		return t.T("FAIL")
	}
	return t.T("skip")
}

// lineIn is one check as the summary shows it, in t's language: its
// outcome, its name (the same in every language) and what was found.
func lineIn(t tongue, c Check) string {
	w := 4
	for _, s := range []Status{Pass, Fail, Skip} {
		w = max(w, textwidth.Width(t.status(s)))
	}
	st := t.status(c.Status)
	st += strings.Repeat(" ", w-textwidth.Width(st))
	return fmt.Sprintf("  %s  %-18s %s", st, c.Name, detailIn(t, c))
}

// LineIn is Line in sp's language (nil: English, as Line).
func LineIn(c Check, sp i18n.Speaker) string { return lineIn(tongue{sp}, c) }

// SummaryIn is Summary in sp's language (nil: English, as Summary).
func (r *Report) SummaryIn(sp i18n.Speaker) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := tongue{sp}
	var b strings.Builder
	sys := r.OS + "/" + r.Arch
	if r.System != "" {
		sys += " (" + r.System + ")"
	}
	b.WriteString(t.T("RAMBar %s self-test on %s", r.RAMBar, sys) + "\n")
	for _, c := range r.Checks {
		b.WriteString(lineIn(t, c))
		b.WriteByte('\n')
	}
	if r.Failed > 0 {
		b.WriteString(t.T("%d FAILED: %d passed, %d failed, %d skipped in %.0f s", r.Failed, r.Passed, r.Failed, r.Skipped, r.Seconds) + "\n")
	} else {
		b.WriteString(t.T("all checks passed: %d passed, %d failed, %d skipped in %.0f s", r.Passed, r.Failed, r.Skipped, r.Seconds) + "\n")
	}
	if r.Dir != "" {
		b.WriteString(t.T("Report: %s", filepath.Join(r.Dir, "report.json")) + "\n")
	}
	return b.String()
}
