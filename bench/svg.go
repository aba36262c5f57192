package bench

import (
	"fmt"
	"html"
	"math"
	"strings"
	"unicode/utf8"

	"rambar/ramdisk"
)

// svgColors are the bar colours, one per RAM disk compared.
var svgColors = []string{"#4C78A8", "#F58518", "#54A24B", "#B279A2", "#E45756", "#72B7B2"}

// Chart geometry: text is estimated at charW pixels a character, so every
// label is placed inside the canvas whatever its length.
const (
	svgLeft   = 16
	svgCharW  = 6.8 // pixels per character at font-size 12 (a wide estimate)
	svgAxisW  = 400 // the bars' log-scale axis
	svgValueW = 170 // room right of the axis for "569× faster"
	svgBarH   = 14
)

// speedup is one RAM disk against the ordinary disk on one row.
type speedup struct {
	x         float64
	apart, ok bool
}

// SVG draws the report as a bar chart of what a RAM disk gains: one bar per
// row (per RAM disk, when several were measured) whose length is the RAM
// disk's speed-up over the first ordinary disk, on a log scale around 1×,
// with the two medians under the row's name. A row that could not be
// compared says why once. Hand-written SVG with no dependencies.
func (r Report) SVG() string {
	c := newChart(r)
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="-apple-system, Helvetica, Arial, sans-serif" font-size="12">`+"\n", c.width, c.height, c.width, c.height)
	c.b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	c.text(svgLeft, 24, ` font-size="15" font-weight="bold"`, "How many times faster is the RAM disk?")
	if c.disk == nil || len(c.rams) == 0 {
		c.text(svgLeft, 44, ` fill="#555"`, fmt.Sprintf("Median of %s; nothing to compare: the chart needs a RAM disk and an ordinary disk.", ramdisk.Plural(r.Runs, "run")))
		c.text(svgLeft, 64, ` fill="#555"`, "rambar bench NAME measures a RAM disk against the home folder's disk.")
		c.b.WriteString("</svg>\n")
		return c.b.String()
	}
	c.text(svgLeft, 44, ` fill="#555"`, fmt.Sprintf("Each bar: the RAM disk's speed-up over %s (%s), median of %s; log scale, 1× = no gain.", c.disk.Name, c.disk.FS, ramdisk.Plural(r.Runs, "run")))
	c.legend()
	c.axis()
	y := c.top + 14
	for _, row := range r.Rows {
		c.row(row, y)
		y += c.groupH
	}
	c.text(svgLeft, c.bottom+24, ` fill="#555" font-size="11"`, "~ marks a difference within the run-to-run noise (the runs' ranges overlap). MiB/s are mebibytes (2^20 bytes) per second.")
	c.b.WriteString("</svg>\n")
	return c.b.String()
}

// chart is the speed-up chart being drawn: its layout and the scale.
type chart struct {
	r                   Report
	rams                []*TargetReport
	disk                *TargetReport
	axisX, width        int
	groupH, top, bottom int
	height              int
	lo, hi              float64 // the scale, from 0.5× to a power of ten
	b                   strings.Builder
}

// newChart lays the chart out: a label column as wide as the longest row
// label, one group of bars per row, and the scale from 0.5× (slower shows
// as a bar to the left of 1×) to the power of ten above the largest
// speed-up, at least 10×.
func newChart(r Report) *chart {
	c := &chart{r: r, lo: 0.5, hi: 10}
	for i := range r.Targets {
		t := &r.Targets[i]
		if t.RAM {
			c.rams = append(c.rams, t)
		} else if c.disk == nil {
			c.disk = t
		}
	}
	longest := 44
	for _, row := range r.Rows {
		longest = max(longest, utf8.RuneCountInString(row.Label))
	}
	c.axisX = svgLeft + int(float64(longest)*svgCharW) + 16
	c.width = c.axisX + svgAxisW + svgValueW
	c.groupH = max(36, len(c.rams)*(svgBarH+2)+22)
	c.top = 76
	if len(c.rams) > 1 {
		c.top += 20
	}
	c.height = c.top + 46
	if c.disk != nil && len(c.rams) > 0 {
		c.height += len(r.Rows) * c.groupH
		for _, row := range r.Rows {
			for _, t := range c.rams {
				if s := compare(t, c.disk, row.ID); s.ok {
					for c.hi < s.x {
						c.hi *= 10
					}
				}
			}
		}
	}
	c.bottom = c.top + len(r.Rows)*c.groupH
	return c
}

func (c *chart) text(x, y int, attrs, s string) {
	fmt.Fprintf(&c.b, `<text x="%d" y="%d"%s>%s</text>`+"\n", x, y, attrs, html.EscapeString(s))
}

// pos is where speed-up x sits on the log scale.
func (c *chart) pos(x float64) float64 {
	x = min(max(x, c.lo), c.hi)
	return float64(c.axisX) + svgAxisW*math.Log(x/c.lo)/math.Log(c.hi/c.lo)
}

// legend names the RAM disks' colours when there are several.
func (c *chart) legend() {
	if len(c.rams) < 2 {
		return
	}
	x := svgLeft
	for i, t := range c.rams {
		label := fmt.Sprintf("%s (%s)", t.Name, t.FS)
		fmt.Fprintf(&c.b, `<rect x="%d" y="54" width="12" height="12" fill="%s"/>`+"\n", x, svgColors[i%len(svgColors)])
		c.text(x+16, 64, "", label)
		x += 28 + int(float64(utf8.RuneCountInString(label))*svgCharW)
	}
}

// axis draws a line and a label at each power of ten.
func (c *chart) axis() {
	for t := 1.0; t <= c.hi; t *= 10 {
		fmt.Fprintf(&c.b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#ccc"/>`+"\n", c.pos(t), c.pos(t), c.top-6, c.bottom)
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%d" fill="#888" text-anchor="middle">%s×</text>`+"\n", c.pos(t), c.top-10, thousands(t))
	}
}

// row draws one row's label, medians and a bar per RAM disk at y.
func (c *chart) row(row RowInfo, y int) {
	c.text(svgLeft, y, ` font-weight="bold"`, row.Label)
	if why, same := sameSkip(c.rams, c.disk, row.ID); same {
		// Said once, under the row's name where its figures would be: nothing
		// is drawn on the axis, so no word lies across its lines.
		c.text(svgLeft, y+15, ` fill="#888" font-size="11"`, why)
		return
	}
	c.text(svgLeft, y+15, ` fill="#666" font-size="11"`, medians(c.r.Targets, row.ID))
	for i, t := range c.rams {
		by := y - 11 + i*(svgBarH+2)
		s := compare(t, c.disk, row.ID)
		if !s.ok {
			c.note(by, "not compared: "+notCompared(t, c.disk, row.ID))
			continue
		}
		x0, x1 := c.pos(min(1, s.x)), c.pos(max(1, s.x))
		fmt.Fprintf(&c.b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", x0, by, max(x1-x0, 1), svgBarH, svgColors[i%len(svgColors)])
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%d">%s</text>`+"\n", x1+6, by+svgBarH-3, html.EscapeString(speedupWords(tongue{}, s)))
	}
}

// note writes why a bar is missing, in a bar's place at by: right of the
// 1× line, on a white ground that hides the axis's lines behind it, so it
// crosses none of them.
func (c *chart) note(by int, s string) {
	x := int(math.Ceil(c.pos(1))) + 4
	w := int(math.Ceil(float64(utf8.RuneCountInString(s))*svgCharW)) + 4
	fmt.Fprintf(&c.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="white"/>`+"\n", x-2, by, min(w, c.width-x), svgBarH)
	c.text(x, by+svgBarH-3, ` fill="#888"`, s)
}

// compare is RAM disk t against disk on one row.
func compare(t, disk *TargetReport, id RowID) speedup {
	a, _ := t.Result(id)
	d, _ := disk.Result(id)
	x, apart, ok := speedupOf(a, d)
	return speedup{x, apart, ok}
}

// speedupWords reads a speed-up in t's language: "9.7× faster", "~1.1×
// (noise)", "2.0× slower".
func speedupWords(t tongue, s speedup) string {
	switch {
	case !s.apart:
		return t.T("~%s× (noise)", t.num(s.x, 1))
	case s.x >= 1:
		return t.T("%s× faster", speedupNum(t, s.x))
	}
	return t.T("%s× slower", speedupNum(t, 1/s.x))
}

// speedupNum is a speed-up's figure: 569, 5.8.
func speedupNum(t tongue, x float64) string {
	if x >= 100 {
		return t.num(x, 0)
	}
	return t.num(x, 1)
}

// medians is a row's figures on every target that has one:
// "Scratch 7,357 MiB/s · Home disk 4,722 MiB/s".
func medians(ts []TargetReport, id RowID) string {
	var parts []string
	for _, t := range ts {
		if res, ok := t.Result(id); ok && res.OK() {
			parts = append(parts, t.Name+" "+Format(res.Median, res.Unit))
		}
	}
	return strings.Join(parts, " · ")
}

// sameSkip reports whether every target skipped row id for one reason
// (a row that does not exist on this OS), and that reason.
func sameSkip(rams []*TargetReport, disk *TargetReport, id RowID) (string, bool) {
	why := ""
	for _, t := range append([]*TargetReport{disk}, rams...) {
		res, _ := t.Result(id)
		if res.Skipped == "" || (why != "" && res.Skipped != why) {
			return "", false
		}
		why = res.Skipped
	}
	return why, true
}

// notCompared says which side has no figure for row id, and why.
func notCompared(t, disk *TargetReport, id RowID) string {
	for _, x := range []*TargetReport{t, disk} {
		if res, _ := x.Result(id); !res.OK() {
			return x.Name + ": " + res.Cell()
		}
	}
	return "no figures"
}
