package bench

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"rambar/i18n"
	"rambar/internal/textwidth"
)

// CompactWidth is the most columns Compact's table takes: it fits a dialog
// (and an 80-column terminal) in a monospace font.
const CompactWidth = 72

// compactNameW is the most a target's name takes as a column heading; the
// line above the table names it in full.
const compactNameW = 14

// noteMarks mark a figure qualified by a note under the table.
var noteMarks = []string{"¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"}

// Compact is the report as a monospace table at most CompactWidth columns
// wide, for the menu's Benchmark This Disk: one line per row (long labels
// wrap), the medians of the first RAM disk and the first ordinary disk and
// how many times faster the RAM disk is, in the words and figures of the
// chart (SVG) and the figures of `rambar bench` (Table): the same medians,
// the same speed-ups. A row no target could run says why once; a row one
// side could not run says why under the table. Without both kinds of
// target it is each target's medians.
func (r Report) Compact() string { return r.CompactIn(nil) }

// CompactIn is Compact in sp's language (nil: English, as Compact); a
// Chinese or Japanese character takes two columns of the width.
func (r Report) CompactIn(sp i18n.Speaker) string {
	c := newCompact(r, tongue{sp})
	var b strings.Builder
	for _, l := range wrap(c.heading(), CompactWidth) {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	c.render(&b)
	return b.String()
}

// compact is a Compact table being laid out.
type compact struct {
	r       Report
	t       tongue
	shown   []*TargetReport
	ram     *TargetReport // with disk: the pair compared
	disk    *TargetReport
	rows    [][]string // per report row: a cell per shown target, then the speed-up
	span    []string   // per report row: the reason every target skipped it, or ""
	notes   []string   // footnotes, in mark order (as the results hold them)
	said    []string   // the footnotes in t's language
	missing []string   // rows one side could not run, and why
	noise   bool       // some speed-up is within the noise
}

func newCompact(r Report, t tongue) *compact {
	c := &compact{r: r, t: t}
	c.ram, c.disk = r.ramAndDisk()
	if c.ram != nil && c.disk != nil {
		c.shown = []*TargetReport{c.ram, c.disk}
	} else {
		for i := range r.Targets {
			c.shown = append(c.shown, &r.Targets[i])
		}
	}
	for _, row := range r.Rows {
		why := "" // why every shown target skipped the row, said in c.t
		if len(c.shown) > 0 {
			if _, same := sameSkip(c.shown[1:], c.shown[0], row.ID); same {
				why = c.reason(row.ID)
			}
		}
		c.span = append(c.span, why)
		if why == "" {
			c.rows = append(c.rows, c.cells(row))
		} else {
			c.rows = append(c.rows, nil)
		}
	}
	return c
}

// cells are one row's figures and, for a pair, its speed-up.
func (c *compact) cells(row RowInfo) []string {
	var cells []string
	for _, t := range c.shown {
		res, _ := t.Result(row.ID)
		if !res.OK() {
			cells = append(cells, "–")
			c.missing = append(c.missing, c.t.T("%s on %s: %s", c.r.labelIn(c.t, row), c.t.name(t.Name), res.cellIn(c.t)))
			continue
		}
		cell := formatIn(c.t, res.Median, res.Unit)
		if res.Note != "" {
			i := slices.Index(c.notes, res.Note)
			if i < 0 {
				i = len(c.notes)
				c.notes = append(c.notes, res.Note)
				c.said = append(c.said, res.noteIn(c.t))
			}
			cell += noteMarks[min(i, len(noteMarks)-1)]
		}
		cells = append(cells, cell)
	}
	if c.disk != nil && c.ram != nil {
		s := compare(c.ram, c.disk, row.ID)
		switch {
		case s.ok:
			cells = append(cells, speedupWords(c.t, s))
			c.noise = c.noise || !s.apart
		default:
			cells = append(cells, "")
		}
	}
	return cells
}

// reason is why every shown target skipped a row, in t's language.
func (c *compact) reason(id RowID) string {
	res, _ := c.shown[0].Result(id)
	return res.skippedIn(c.t)
}

// heading is the line above the table: what was measured against what.
func (c *compact) heading() string {
	t := c.t
	how := t.T("median of %d runs, full sizes", c.r.Runs)
	if c.r.Quick {
		how = t.T("median of %d runs, quick sizes", c.r.Runs)
	}
	switch {
	case c.ram != nil && c.disk != nil:
		return t.T("%s (%s) vs %s (%s), %s.", t.name(c.ram.Name), c.ram.FS, t.name(c.disk.Name), c.disk.FS, how)
	case len(c.shown) == 0:
		return t.T("Nothing measured.")
	}
	names := make([]string, len(c.shown))
	for i, x := range c.shown {
		names[i] = fmt.Sprintf("%s (%s)", t.name(x.Name), x.FS)
	}
	return t.T("%s, %s; no RAM disk and ordinary disk to compare.", strings.Join(names, ", "), how)
}

// render writes the header, the rows and the notes.
func (c *compact) render(b *strings.Builder) {
	if len(c.shown) == 0 {
		return
	}
	head := []string{c.t.T("Test")}
	for _, t := range c.shown {
		head = append(head, clip(c.t.name(t.Name), compactNameW))
	}
	if c.disk != nil && c.ram != nil {
		head = append(head, c.t.T("RAM disk is"))
	}
	c.alignMarks()
	widths := make([]int, len(head))
	for i, h := range head {
		widths[i] = width(h)
	}
	labels := make([]string, len(c.r.Rows))
	longest := 0
	for i, row := range c.r.Rows {
		labels[i] = c.r.labelIn(c.t, row)
		longest = max(longest, width(labels[i]))
		for j, cell := range c.rows[i] {
			widths[j+1] = max(widths[j+1], width(cell))
		}
	}
	rest := 0
	for _, w := range widths[1:] {
		rest += w + 2
	}
	widths[0] = min(longest, max(16, CompactWidth-rest))
	// line writes a label part, then cells right-aligned in their columns
	// (or, for a row no target ran, the reason after the label).
	line := func(label string, cells ...string) {
		l := label + strings.Repeat(" ", widths[0]-width(label))
		for i, cell := range cells {
			l += "  " + strings.Repeat(" ", max(0, widths[i+1]-width(cell))) + cell
		}
		b.WriteString(strings.TrimRight(l, " ") + "\n")
	}
	line(head[0], head[1:]...)
	for i := range c.r.Rows {
		label := wrap(labels[i], widths[0])
		if c.span[i] == "" {
			line(label[0], c.rows[i]...)
			for _, more := range label[1:] {
				line(more)
			}
			continue
		}
		reason := wrap(c.span[i], CompactWidth-widths[0]-2)
		for k := 0; k < max(len(label), len(reason)); k++ {
			l := at(label, k)
			b.WriteString(strings.TrimRight(l+strings.Repeat(" ", widths[0]-width(l))+"  "+at(reason, k), " ") + "\n")
		}
	}
	c.footer(b)
}

// alignMarks keeps the figures of a column aligned when some carry a note
// mark: the others get a space where the mark would be.
func (c *compact) alignMarks() {
	marked := map[int]bool{}
	for _, cells := range c.rows {
		for j, cell := range cells {
			r, _ := utf8.DecodeLastRuneInString(cell)
			marked[j] = marked[j] || slices.Contains(noteMarks, string(r))
		}
	}
	for _, cells := range c.rows {
		for j, cell := range cells {
			r, _ := utf8.DecodeLastRuneInString(cell)
			if marked[j] && !slices.Contains(noteMarks, string(r)) {
				cells[j] = cell + " "
			}
		}
	}
}

// footer explains the marks and names the rows one side could not run.
func (c *compact) footer(b *strings.Builder) {
	var lines []string
	for i, n := range c.said {
		lines = append(lines, noteMarks[min(i, len(noteMarks)-1)]+" "+n)
	}
	if c.noise {
		lines = append(lines, c.t.T("~ the runs' ranges overlap: a difference within the run-to-run noise."))
	}
	for _, m := range c.missing {
		lines = append(lines, c.t.T("Not measured: %s", m))
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("\n")
	for _, l := range lines {
		for _, w := range wrap(l, CompactWidth) {
			b.WriteString(w + "\n")
		}
	}
}

// clip shortens s to at most w columns, ending it with "…" when cut.
func clip(s string, w int) string {
	if width(s) <= w {
		return s
	}
	head, _ := cut(s, w-1)
	return head + "…"
}

// cut splits s after as many runes as fit in w columns (at least one).
func cut(s string, w int) (head, rest string) {
	n := 0
	for i, r := range s {
		n += textwidth.RuneWidth(r)
		if n > w && i > 0 {
			return s[:i], s[i:]
		}
	}
	return s, ""
}

// at is lines[k], or "" past the end.
func at(lines []string, k int) string {
	if k < len(lines) {
		return lines[k]
	}
	return ""
}

// wrap breaks s into lines of at most w columns at spaces (a word longer
// than w is cut, as is text written without spaces, Chinese or Japanese);
// lines after the first are indented by one space.
func wrap(s string, w int) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		for width(word) > w-1 && w > 2 {
			if cur != "" {
				lines, cur = append(lines, cur), ""
			}
			var head string
			head, word = cut(word, w-1)
			lines = append(lines, head)
		}
		switch {
		case cur == "" && len(lines) == 0:
			cur = word
		case cur == "":
			cur = " " + word
		case width(cur)+1+width(word) <= w:
			cur += " " + word
		default:
			lines, cur = append(lines, cur), " "+word
		}
	}
	return append(lines, cur)
}
