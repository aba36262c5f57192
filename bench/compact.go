package bench

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"rambar/ramdisk"
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
func (r Report) Compact() string {
	c := newCompact(r)
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
	shown   []*TargetReport
	ram     *TargetReport // with disk: the pair compared
	disk    *TargetReport
	rows    [][]string // per report row: a cell per shown target, then the speed-up
	span    []string   // per report row: the reason every target skipped it, or ""
	notes   []string   // footnotes, in mark order
	missing []string   // rows one side could not run, and why
	noise   bool       // some speed-up is within the noise
}

func newCompact(r Report) *compact {
	c := &compact{r: r}
	c.ram, c.disk = r.ramAndDisk()
	if c.ram != nil && c.disk != nil {
		c.shown = []*TargetReport{c.ram, c.disk}
	} else {
		for i := range r.Targets {
			c.shown = append(c.shown, &r.Targets[i])
		}
	}
	for _, row := range r.Rows {
		why, same := "", false
		if len(c.shown) > 0 {
			why, same = sameSkip(c.shown[1:], c.shown[0], row.ID)
		}
		if !same {
			why = ""
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
			c.missing = append(c.missing, fmt.Sprintf("%s on %s: %s", row.Label, t.Name, res.Cell()))
			continue
		}
		cell := Format(res.Median, res.Unit)
		if res.Note != "" {
			i := slices.Index(c.notes, res.Note)
			if i < 0 {
				i = len(c.notes)
				c.notes = append(c.notes, res.Note)
			}
			cell += noteMarks[min(i, len(noteMarks)-1)]
		}
		cells = append(cells, cell)
	}
	if c.disk != nil && c.ram != nil {
		s := compare(c.ram, c.disk, row.ID)
		switch {
		case s.ok:
			cells = append(cells, speedupWords(s))
			c.noise = c.noise || !s.apart
		default:
			cells = append(cells, "")
		}
	}
	return cells
}

// heading is the line above the table: what was measured against what.
func (c *compact) heading() string {
	mode := "full"
	if c.r.Quick {
		mode = "quick"
	}
	how := fmt.Sprintf("median of %s, %s sizes", ramdisk.Plural(c.r.Runs, "run"), mode)
	switch {
	case c.ram != nil && c.disk != nil:
		return fmt.Sprintf("%s (%s) vs %s (%s), %s.", c.ram.Name, c.ram.FS, c.disk.Name, c.disk.FS, how)
	case len(c.shown) == 0:
		return "Nothing measured."
	}
	names := make([]string, len(c.shown))
	for i, t := range c.shown {
		names[i] = fmt.Sprintf("%s (%s)", t.Name, t.FS)
	}
	return fmt.Sprintf("%s, %s; no RAM disk and ordinary disk to compare.", strings.Join(names, ", "), how)
}

// render writes the header, the rows and the notes.
func (c *compact) render(b *strings.Builder) {
	if len(c.shown) == 0 {
		return
	}
	head := []string{"Test"}
	for _, t := range c.shown {
		head = append(head, clip(t.Name, compactNameW))
	}
	if c.disk != nil && c.ram != nil {
		head = append(head, "RAM disk is")
	}
	c.alignMarks()
	widths := make([]int, len(head))
	for i, h := range head {
		widths[i] = width(h)
	}
	longest := 0
	for i, row := range c.r.Rows {
		longest = max(longest, width(row.Label))
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
	for i, row := range c.r.Rows {
		label := wrap(row.Label, widths[0])
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
	for i, n := range c.notes {
		lines = append(lines, noteMarks[min(i, len(noteMarks)-1)]+" "+n)
	}
	if c.noise {
		lines = append(lines, "~ the runs' ranges overlap: a difference within the run-to-run noise.")
	}
	for _, m := range c.missing {
		lines = append(lines, "Not measured: "+m)
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

// width is how many columns s takes in a monospace font (every rune the
// table prints is one column wide).
func width(s string) int { return utf8.RuneCountInString(s) }

// clip shortens s to at most w columns, ending it with "…" when cut.
func clip(s string, w int) string {
	if width(s) <= w {
		return s
	}
	r := []rune(s)
	return string(r[:w-1]) + "…"
}

// at is lines[k], or "" past the end.
func at(lines []string, k int) string {
	if k < len(lines) {
		return lines[k]
	}
	return ""
}

// wrap breaks s into lines of at most w columns at spaces (a word longer
// than w is cut); lines after the first are indented by one space.
func wrap(s string, w int) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		for width(word) > w-1 && w > 2 {
			if cur != "" {
				lines, cur = append(lines, cur), ""
			}
			r := []rune(word)
			lines, word = append(lines, string(r[:w-1])), string(r[w-1:])
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
