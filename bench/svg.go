package bench

import (
	"fmt"
	"html"
	"strings"

	"rambar/ramdisk"
)

// svgColors are the bar colours, one per target.
var svgColors = []string{"#4C78A8", "#F58518", "#54A24B", "#B279A2", "#E45756", "#72B7B2"}

// SVG draws the report as a bar chart: one group per row, one bar per target,
// each row scaled to its own best figure (units differ between rows), the
// median printed on each bar and the min–max range as a whisker. Hand-written
// SVG with no dependencies.
func (r Report) SVG() string {
	const (
		left, barH, gap, width, labelW = 16, 16, 22, 900, 300
		chartW                         = width - labelW - 140
	)
	nt := len(r.Targets)
	groupH := nt*barH + gap
	height := 70 + len(r.Rows)*groupH + 20
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="-apple-system, Helvetica, Arial, sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">Does a RAM disk help? (median of %s; longer bar is better)</text>`+"\n", left, ramdisk.Plural(r.Runs, "run"))
	x := left
	for i, t := range r.Targets {
		c := svgColors[i%len(svgColors)]
		label := html.EscapeString(fmt.Sprintf("%s (%s)", t.Name, t.FS))
		fmt.Fprintf(&b, `<rect x="%d" y="34" width="12" height="12" fill="%s"/><text x="%d" y="44">%s</text>`+"\n", x, c, x+16, label)
		x += 24 + 7*len(label)
	}
	y := 64
	for _, row := range r.Rows {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", left, y+barH-3, html.EscapeString(row.Label))
		// Scale: the best figure fills the chart. For times, a bar's length
		// is best/value so that faster is longer, like throughput.
		best := 0.0
		for _, t := range r.Targets {
			if res, ok := t.Result(row.ID); ok && res.OK() {
				v := res.Median
				if !row.Unit.HigherIsBetter() {
					v = 1 / v
				}
				best = max(best, v)
			}
		}
		for i, t := range r.Targets {
			by := y + i*barH
			res, _ := t.Result(row.ID)
			if !res.OK() || best <= 0 {
				fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#888">%s</text>`+"\n", labelW, by+barH-4, html.EscapeString(res.Cell()))
				continue
			}
			length := func(v float64) float64 {
				if !row.Unit.HigherIsBetter() {
					v = 1 / v
				}
				return float64(chartW) * v / best
			}
			w := length(res.Median)
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", labelW, by+2, w, barH-4, svgColors[i%len(svgColors)])
			lo, hi := length(res.Min), length(res.Max)
			if lo > hi {
				lo, hi = hi, lo
			}
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#333"/>`+"\n", float64(labelW)+lo, float64(labelW)+hi, by+barH/2, by+barH/2)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", float64(labelW)+max(w, hi)+6, by+barH-4, html.EscapeString(Format(res.Median, res.Unit)))
		}
		y += groupH
	}
	b.WriteString("</svg>\n")
	return b.String()
}
