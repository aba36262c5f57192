package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"rambar/ramdisk"
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
func Format(v float64, u Unit) string {
	return formatNum(v, u) + " " + string(u)
}

func formatNum(v float64, u Unit) string {
	switch u {
	case Secs:
		return fmt.Sprintf("%.3f", v)
	case Micros:
		if v < 10 {
			return fmt.Sprintf("%.1f", v)
		}
	}
	return thousands(v)
}

// Cell is a result as one table cell: "4,722 MiB/s [4,600–4,800]", or why it
// was not measured.
func (r Result) Cell() string {
	switch {
	case r.Err != "":
		return "failed: " + r.Err
	case r.Skipped != "":
		return r.Skipped
	case len(r.Samples) == 0:
		return "-"
	}
	s := Format(r.Median, r.Unit)
	if len(r.Samples) > 1 {
		s += fmt.Sprintf(" [%s–%s]", formatNum(r.Min, r.Unit), formatNum(r.Max, r.Unit))
	}
	if r.Note != "" && r.Unit == MiBps {
		s += " " + r.Note
	}
	return s
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
func (r Report) Table() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
	ram, disk := r.ramAndDisk()
	head := []string{"Test"}
	for _, t := range r.Targets {
		head = append(head, fmt.Sprintf("%s (%s)", t.Name, t.FS))
	}
	if ram != nil && disk != nil {
		head = append(head, "RAM vs disk")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	var notes []string
	for _, row := range r.Rows {
		cells := []string{row.Label}
		var seen []string
		for _, t := range r.Targets {
			res, _ := t.Result(row.ID)
			cells = append(cells, res.Cell())
			if res.Note != "" && res.Unit != MiBps && res.OK() && !slices.Contains(seen, res.Note) {
				seen = append(seen, res.Note)
				notes = append(notes, fmt.Sprintf("%s: %s", row.Label, res.Note))
			}
		}
		if ram != nil && disk != nil {
			a, _ := ram.Result(row.ID)
			d, _ := disk.Result(row.ID)
			if x, apart, ok := speedupOf(a, d); ok {
				c := speedupNum(x) + "×" // the chart's and the menu's figure
				if !apart {
					c = "~" + c
				}
				cells = append(cells, c)
			} else {
				cells = append(cells, "")
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	mode := "full"
	if r.Quick {
		mode = "quick"
	}
	fmt.Fprintf(&b, "\nMedian of %s [min–max], %s sizes, %s.", ramdisk.Plural(r.Runs, "run"), mode, osName())
	if ram != nil && disk != nil {
		fmt.Fprintf(&b, " RAM vs disk: %s against %s; ~ means the runs overlap (noise).", ram.Name, disk.Name)
	}
	fmt.Fprintf(&b, " Uncached rows use %s unless a cell says otherwise", uncachedHow)
	if canLayOut {
		b.WriteString("; the write fills a file laid out first (fallocate), as fio's does")
	}
	b.WriteString(".\n")
	for _, n := range notes {
		b.WriteString("  " + n + "\n")
	}
	return b.String()
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
