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
	var rams []*TargetReport
	var disk *TargetReport
	for i := range r.Targets {
		t := &r.Targets[i]
		if t.RAM {
			rams = append(rams, t)
		} else if disk == nil {
			disk = t
		}
	}
	longest := 44
	for _, row := range r.Rows {
		longest = max(longest, utf8.RuneCountInString(row.Label))
	}
	axisX := svgLeft + int(float64(longest)*svgCharW) + 16
	width := axisX + svgAxisW + svgValueW
	groupH := max(36, len(rams)*(svgBarH+2)+22)
	top := 76
	if len(rams) > 1 {
		top += 20
	}
	compared := disk != nil && len(rams) > 0
	height := top + 46
	if compared {
		height += len(r.Rows) * groupH
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="-apple-system, Helvetica, Arial, sans-serif" font-size="12">`+"\n", width, height, width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	text := func(x, y int, attrs, s string) {
		fmt.Fprintf(&b, `<text x="%d" y="%d"%s>%s</text>`+"\n", x, y, attrs, html.EscapeString(s))
	}
	text(svgLeft, 24, ` font-size="15" font-weight="bold"`, "How many times faster is the RAM disk?")
	if !compared {
		text(svgLeft, 44, ` fill="#555"`, fmt.Sprintf("Median of %s; nothing to compare: the chart needs a RAM disk and an ordinary disk.", ramdisk.Plural(r.Runs, "run")))
		text(svgLeft, 64, ` fill="#555"`, "rambar bench NAME measures a RAM disk against the home folder's disk.")
		b.WriteString("</svg>\n")
		return b.String()
	}
	text(svgLeft, 44, ` fill="#555"`, fmt.Sprintf("Each bar: the RAM disk's speed-up over %s (%s), median of %s; log scale, 1× = no gain.", disk.Name, disk.FS, ramdisk.Plural(r.Runs, "run")))
	if len(rams) > 1 {
		x := svgLeft
		for i, t := range rams {
			label := fmt.Sprintf("%s (%s)", t.Name, t.FS)
			fmt.Fprintf(&b, `<rect x="%d" y="54" width="12" height="12" fill="%s"/>`+"\n", x, svgColors[i%len(svgColors)])
			text(x+16, 64, "", label)
			x += 28 + int(float64(utf8.RuneCountInString(label))*svgCharW)
		}
	}
	// The scale: from 0.5× (slower shows as a bar to the left of 1×) to the
	// power of ten above the largest speed-up, at least 10×.
	hi := 10.0
	for _, row := range r.Rows {
		for _, t := range rams {
			if s := compare(t, disk, row.ID); s.ok {
				for hi < s.x {
					hi *= 10
				}
			}
		}
	}
	lo := 0.5
	pos := func(x float64) float64 {
		x = min(max(x, lo), hi)
		return float64(axisX) + svgAxisW*math.Log(x/lo)/math.Log(hi/lo)
	}
	bottom := top + len(r.Rows)*groupH
	for t := 1.0; t <= hi; t *= 10 {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#ccc"/>`+"\n", pos(t), pos(t), top-6, bottom)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#888" text-anchor="middle">%s×</text>`+"\n", pos(t), top-10, thousands(t))
	}
	y := top + 14
	for _, row := range r.Rows {
		text(svgLeft, y, ` font-weight="bold"`, row.Label)
		text(svgLeft, y+15, ` fill="#666" font-size="11"`, medians(r.Targets, row.ID))
		if why, same := sameSkip(rams, disk, row.ID); same {
			text(axisX+4, y, ` fill="#888"`, why) // the n/a row, said once
			y += groupH
			continue
		}
		for i, t := range rams {
			by := y - 11 + i*(svgBarH+2)
			s := compare(t, disk, row.ID)
			if !s.ok {
				text(axisX+4, by+svgBarH-3, ` fill="#888"`, "not compared: "+notCompared(t, disk, row.ID))
				continue
			}
			x0, x1 := pos(min(1, s.x)), pos(max(1, s.x))
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", x0, by, max(x1-x0, 1), svgBarH, svgColors[i%len(svgColors)])
			fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", x1+6, by+svgBarH-3, html.EscapeString(speedupWords(s)))
		}
		y += groupH
	}
	text(svgLeft, bottom+24, ` fill="#555" font-size="11"`, "~ marks a difference within the run-to-run noise (the runs' ranges overlap). MB/s are decimal megabytes per second.")
	b.WriteString("</svg>\n")
	return b.String()
}

// compare is RAM disk t against disk on one row.
func compare(t, disk *TargetReport, id RowID) speedup {
	a, _ := t.Result(id)
	d, _ := disk.Result(id)
	x, apart, ok := speedupOf(a, d)
	return speedup{x, apart, ok}
}

// speedupWords reads a speed-up: "9.7× faster", "~1.1× (noise)", "2.0× slower".
func speedupWords(s speedup) string {
	switch {
	case !s.apart:
		return fmt.Sprintf("~%.1f× (noise)", s.x)
	case s.x >= 1:
		return fmt.Sprintf("%s× faster", speedupNum(s.x))
	}
	return fmt.Sprintf("%s× slower", speedupNum(1/s.x))
}

func speedupNum(x float64) string {
	if x >= 100 {
		return thousands(x)
	}
	return fmt.Sprintf("%.1f", x)
}

// medians is a row's figures on every target that has one:
// "Scratch 7,357 MB/s · Home disk 4,722 MB/s".
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
