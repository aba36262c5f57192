// Package textwidth measures text as a terminal or a monospace font shows
// it, and lines up columns by it: text/tabwriter counts runes, so one
// name in Chinese or with an emoji shifted every column after it.
package textwidth

import (
	"bytes"
	"io"
	"strings"
	"unicode"
)

// Width is how many terminal columns s takes: East Asian wide and
// full-width characters and most emoji take two, combining marks and
// zero-width characters none (a small rule, enough for names and words in
// tables).
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += RuneWidth(r)
	}
	return n
}

// wideRanges are the East Asian Wide and Fullwidth blocks, and the emoji
// blocks terminals draw two columns wide.
var wideRanges = [][2]rune{
	{0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC}, {0x2E80, 0x303E},
	{0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF}, {0xA960, 0xA97F},
	{0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F}, {0xFF00, 0xFF60},
	{0xFFE0, 0xFFE6}, {0x1F300, 0x1F64F}, {0x1F680, 0x1F6FF}, {0x1F900, 0x1F9FF}, {0x20000, 0x2FFFD},
	{0x30000, 0x3FFFD},
}

// RuneWidth is how many terminal columns r takes: 0, 1 or 2.
func RuneWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf), r >= 0xFE00 && r <= 0xFE0F:
		return 0
	case r < 0x1100:
		return 1
	}
	for _, w := range wideRanges {
		if r >= w[0] && r <= w[1] {
			return 2
		}
	}
	return 1
}

// Columns is a tabwriter for tables that show names and words: cells end
// with a tab, lines with a newline, and each column is as wide as its
// widest cell in display width plus two spaces (as text/tabwriter with
// padding 2 lays out text that is one column a rune).
type Columns struct {
	w   io.Writer
	buf bytes.Buffer
}

// NewColumns is a Columns writing to w at Flush.
func NewColumns(w io.Writer) *Columns { return &Columns{w: w} }

// Write buffers p until Flush.
func (c *Columns) Write(p []byte) (int, error) { return c.buf.Write(p) }

// Flush writes the table, aligned.
func (c *Columns) Flush() error {
	text := strings.TrimSuffix(c.buf.String(), "\n")
	c.buf.Reset()
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	var widths []int
	cells := make([][]string, len(lines))
	for i, l := range lines {
		cells[i] = strings.Split(l, "\t")
		for j, cell := range cells[i][:len(cells[i])-1] { // the last cell is not a column
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], Width(cell))
		}
	}
	var out strings.Builder
	for _, row := range cells {
		for j, cell := range row {
			out.WriteString(cell)
			if j < len(row)-1 {
				out.WriteString(strings.Repeat(" ", widths[j]-Width(cell)+2))
			}
		}
		out.WriteByte('\n')
	}
	_, err := io.WriteString(c.w, out.String())
	return err
}
