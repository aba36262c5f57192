package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"rambar/i18n"
	"rambar/internal/textwidth"
)

// thousands formats f rounded to a whole number with comma separators: 4,722.
func thousands(f float64) string {
	s := fmt.Sprintf("%.0f", math.Round(f))
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Format prints a figure in u the way the seed's table does: "4,722 MiB/s",
// "45 µs", "3.1 µs", "0.750 s".
func Format(v float64, u Unit) string { return formatIn(tongue{}, v, u) }

// formatIn is Format in t's language: the figure as it writes numbers, the
// unit the same everywhere.
func formatIn(t tongue, v float64, u Unit) string {
	return formatNum(t, v, u) + " " + string(u)
}

func formatNum(t tongue, v float64, u Unit) string {
	switch u {
	case Secs:
		return t.num(v, 3)
	case Micros:
		if v < 10 {
			return t.num(v, 1)
		}
	}
	return t.num(v, 0)
}

// Cell is a result as one table cell: "4,722 MiB/s [4,600–4,800]", or why it
// was not measured.
func (r Result) Cell() string { return r.cellIn(tongue{}) }

// CellIn is Cell in sp's language (nil: English, as Cell).
func (r Result) CellIn(sp i18n.Speaker) string { return r.cellIn(tongue{sp}) }

// cellIn is Cell in t's language.
func (r Result) cellIn(t tongue) string {
	switch {
	case r.Err != "":
		return t.T("failed: %s", r.Err)
	case r.Skipped != "":
		return r.skippedIn(t)
	case len(r.Samples) == 0:
		return "-"
	}
	s := formatIn(t, r.Median, r.Unit)
	if len(r.Samples) > 1 {
		s += fmt.Sprintf(" [%s–%s]", formatNum(t, r.Min, r.Unit), formatNum(t, r.Max, r.Unit))
	}
	if r.Note != "" && r.Unit == MiBps {
		s += " " + r.noteIn(t)
	}
	return s
}

// skip records why the row was not measured.
func (r *Result) skip(why *words) { r.Skipped, r.skipped = why.String(), why }

// skippedIn is why the row was not measured, in t's language (as it was
// written when it was not made from a message: a report read back).
func (r Result) skippedIn(t tongue) string {
	if r.skipped == nil || r.skipped.String() != r.Skipped {
		return r.Skipped
	}
	return r.skipped.in(t)
}

// noteIn is the note on the figure, in t's language.
func (r Result) noteIn(t tongue) string {
	if len(r.notes) == 0 || sayAll(tongue{}, r.notes) != r.Note {
		return r.Note
	}
	return sayAll(t, r.notes)
}

// speedupOf is how many times better a is than b on one row (for MiB/s a/b,
// for times b/a), and whether the runs' ranges are apart (no overlap between
// min–max), which is when the difference is more than run-to-run noise.
func speedupOf(a, b Result) (x float64, apart, ok bool) {
	if !a.OK() || !b.OK() || a.Median <= 0 || b.Median <= 0 {
		return 0, false, false
	}
	if a.Unit.HigherIsBetter() {
		x = a.Median / b.Median
	} else {
		x = b.Median / a.Median
	}
	apart = a.Max < b.Min || b.Max < a.Min
	return x, apart, true
}

// ramAndDisk returns the first RAM target and the first disk target.
func (r Report) ramAndDisk() (ram, disk *TargetReport) {
	for i := range r.Targets {
		t := &r.Targets[i]
		if t.RAM && ram == nil {
			ram = t
		}
		if !t.RAM && disk == nil {
			disk = t
		}
	}
	return ram, disk
}

// Table renders the report as the seed's table: one row per test, one column
// per target (median, with [min–max] of the runs), and, when there is a RAM
// disk and an ordinary disk, how many times faster the RAM disk was ("~"
// marks a difference within the run-to-run noise).
func (r Report) Table() string { return r.TableIn(nil) }

// TableIn is Table in sp's language (nil: English, as Table).
func (r Report) TableIn(sp i18n.Speaker) string {
	t := tongue{sp}
	var b strings.Builder
	tw := textwidth.NewColumns(&b)
	ram, disk := r.ramAndDisk()
	head := []string{t.T("Test")}
	for _, x := range r.Targets {
		head = append(head, fmt.Sprintf("%s (%s)", t.name(x.Name), x.FS))
	}
	if ram != nil && disk != nil {
		head = append(head, t.T("RAM vs disk"))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	var notes []string
	for _, row := range r.Rows {
		label := r.labelIn(t, row)
		cells := []string{label}
		var seen []string
		for _, x := range r.Targets {
			res, _ := x.Result(row.ID)
			cells = append(cells, res.cellIn(t))
			if res.Note != "" && res.Unit != MiBps && res.OK() && !slices.Contains(seen, res.Note) {
				seen = append(seen, res.Note)
				notes = append(notes, t.T("%s: %s", label, res.noteIn(t)))
			}
		}
		if ram != nil && disk != nil {
			cells = append(cells, speedupCell(t, ram, disk, row.ID))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	b.WriteString("\n" + r.legend(t, ram, disk) + "\n")
	for _, n := range notes {
		b.WriteString("  " + n + "\n")
	}
	return b.String()
}

// speedupCell is the table's RAM vs disk figure of a row: "2.6×", "~1.1×"
// within the noise, "" when either side has no figure.
func speedupCell(t tongue, ram, disk *TargetReport, id RowID) string {
	a, _ := ram.Result(id)
	d, _ := disk.Result(id)
	x, apart, ok := speedupOf(a, d)
	if !ok {
		return ""
	}
	c := speedupNum(t, x) + "×" // the chart's and the menu's figure
	if !apart {
		c = "~" + c
	}
	return c
}

// legend is what the table's figures are: runs, sizes, the OS, what is
// compared, how the uncached rows bypass the cache.
func (r Report) legend(t tongue, ram, disk *TargetReport) string {
	var parts []string
	if r.Quick {
		parts = append(parts, t.T("Median of %d runs [min–max], quick sizes, %s.", r.Runs, osName()))
	} else {
		parts = append(parts, t.T("Median of %d runs [min–max], full sizes, %s.", r.Runs, osName()))
	}
	if ram != nil && disk != nil {
		parts = append(parts, t.T("RAM vs disk: %s against %s; ~ means the runs overlap (noise).", t.name(ram.Name), t.name(disk.Name)))
	}
	if canLayOut {
		parts = append(parts, t.T("Uncached rows use %s unless a cell says otherwise; the write fills a file laid out first (fallocate), as fio's does.", uncachedHow))
	} else {
		parts = append(parts, t.T("Uncached rows use %s unless a cell says otherwise.", uncachedHow))
	}
	return sentences(t, parts...)
}

// sentences puts whole sentences one after the other: with a space
// between them, or none in Chinese and Japanese (the message "%s %s").
func sentences(t tongue, s ...string) string { return joined(t, "%s %s", s) }

// joined is items one after the other, each joined to the next by the
// message sep ("%s %s", "%s; %s", "%s, %s"), which says the language's
// separator.
func joined(t tongue, sep string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	out := items[0]
	for _, x := range items[1:] {
		out = t.T(sep, out, x)
	}
	return out
}

// bytesText prints a byte count in binary units for messages: "80 MiB",
// "6.0 MiB", "1.5 GiB", "400 KiB" (whole numbers when exact, else one decimal).
func bytesText(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f %s", v, units[u])
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}
