//go:build linux

package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"rambar/ramdisk"
)

// report collects the figures and prints them beside their targets.
type report struct{ lines []line }

// line is one figure: what was measured, its target, and whether it met it
// (no target: an informational line).
type line struct {
	name, measured, target string
	hasTarget, met         bool
}

// maxRSS is the target for a save's peak memory with 200,000 files.
const maxRSS = 64 << 20

// ratio adds a time of ours against a tool's, the target the tool's time
// over ours (0: none, the figure is informational).
func (r *report) ratio(name string, us, them time.Duration, target float64) {
	x := them.Seconds() / us.Seconds()
	l := line{name, fmt.Sprintf("%s vs %s = %.2fx", ms(us), ms(them), x), "-", false, false}
	if target > 0 {
		l.target, l.hasTarget, l.met = fmt.Sprintf(">= %.1fx", target), true, x >= target
	}
	r.lines = append(r.lines, l)
}

// info adds an informational figure.
func (r *report) info(name, measured string) {
	r.lines = append(r.lines, line{name: name, measured: measured, target: "-"})
}

// duration adds a time of ours against the most it may take.
func (r *report) duration(name string, d, limit time.Duration) {
	r.lines = append(r.lines, line{name, ms(d), "<= " + ms(limit), true, d <= limit})
}

// share adds a share of one core's time, against the most it may be
// (limit 0: informational).
func (r *report) share(name string, pct, limit float64) {
	l := line{name: name, measured: fmt.Sprintf("%.2f%% of one core", pct), target: "-"}
	if limit > 0 {
		l.target, l.hasTarget, l.met = fmt.Sprintf("< %.1f%%", limit), true, pct < limit
	}
	r.lines = append(r.lines, l)
}

// failures adds how many of n tries failed, against none.
func (r *report) failures(name string, failed, n int) {
	r.lines = append(r.lines, line{name, fmt.Sprintf("%d of %d", failed, n), "0", true, failed == 0})
}

// never adds a time that never came (measured says how long it was
// waited for), against the most it may take: missed.
func (r *report) never(name, measured string, limit time.Duration) {
	r.lines = append(r.lines, line{name, measured, "<= " + ms(limit), true, false})
}

// resident adds a process's resident memory against the most it may be.
func (r *report) resident(name string, rss, limit int64) {
	r.lines = append(r.lines, line{name, ramdisk.Size(rss).Short(), "<= " + ramdisk.Size(limit).Short(), true, rss <= limit})
}

// memoryLimit adds a peak memory, against mirrorMaxRSS when limited.
func (r *report) memoryLimit(name string, rss int64, limited bool) {
	l := line{name: name, measured: ramdisk.Size(rss).Short(), target: "-"}
	if limited {
		l.target, l.hasTarget, l.met = "<= "+ramdisk.Size(mirrorMaxRSS).Short(), true, rss <= mirrorMaxRSS
	}
	r.lines = append(r.lines, l)
}

// memory adds a save's peak memory; the target applies to trees of 200,000
// files (the figure is informational for others).
func (r *report) memory(name string, rss int64) {
	l := line{name: name, measured: ramdisk.Size(rss).Short(), target: "-"}
	if strings.Contains(name, "200000") || strings.Contains(name, "200,000") {
		l.target, l.hasTarget, l.met = "<= 64 MiB", true, rss <= maxRSS
	}
	r.lines = append(r.lines, l)
}

// size adds a store's size on disk against its limit.
func (r *report) size(name string, n, bytes, limit int64) {
	r.lines = append(r.lines, line{name, fmt.Sprintf("%s (files hold %s)", ramdisk.Size(n).Short(), ramdisk.Size(bytes).Short()),
		"<= " + ramdisk.Size(limit).Short(), true, n <= limit})
}

// growth adds how the times grew from the tree prev to t (informational).
func (r *report) growth(prev, t *times) {
	f := float64(t.n) / float64(prev.n)
	g := func(a, b time.Duration) string { return fmt.Sprintf("%.1fx", b.Seconds()/a.Seconds()) }
	r.lines = append(r.lines, line{name: fmt.Sprintf("growth %d -> %d files (%.0fx files)", prev.n, t.n, f),
		measured: fmt.Sprintf("full save %s (rsync %s), restore %s (rsync %s, tar %s)",
			g(prev.save, t.save), g(prev.rsync, t.rsync), g(prev.restore, t.restore), g(prev.rsyncBack, t.rsyncBack), g(prev.tar, t.tar)),
		target: "-"})
}

// print writes the figures as a table and reports whether every target
// was met.
func (r *report) print(w io.Writer) bool {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nfigure\tmeasured (ours vs theirs = ratio)\ttarget\t")
	ok := true
	for _, l := range r.lines {
		mark := ""
		if l.hasTarget {
			mark = "met"
			if !l.met {
				mark, ok = "MISSED", false
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t\n", l.name, l.measured, l.target, mark)
	}
	tw.Flush()
	fmt.Fprintln(w, "\ntimes include process start and a final syncfs of the destination for every tool (mirror flushes before it commits).")
	return ok
}

// ms is d in milliseconds, tenths below 100 ms.
func ms(d time.Duration) string {
	if d < 100*time.Millisecond {
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}
