package bench

import (
	"strings"

	"rambar/i18n"
)

// Summary says the verdict plainly: "2.3× faster on the RAM disk", "1.2×
// slower on the RAM disk", "no measurable gain (within the noise)".
func (r TrialResult) Summary() string { return r.SummaryIn(nil) }

// SummaryIn is Summary in sp's language (nil: English, as Summary).
func (r TrialResult) SummaryIn(sp i18n.Speaker) string {
	t := tongue{sp}
	switch r.Verdict {
	case Faster:
		return t.T("%.1f× faster on the RAM disk", r.Speedup)
	case Slower:
		return t.T("%.1f× slower on the RAM disk", 1/r.Speedup)
	case NoGain:
		switch {
		case r.Speedup >= MinGain:
			return t.T("perhaps %.1f× faster on the RAM disk, but not surely: the runs overlap", r.Speedup)
		case r.Speedup > 0 && r.Speedup <= 1/MinGain:
			return t.T("perhaps %.1f× slower on the RAM disk, but not surely: the runs overlap", 1/r.Speedup)
		}
		return t.T("no measurable gain (within the noise)")
	}
	return t.T("not enough runs to tell")
}

// MoreRuns is how many runs can tell a gain the runs hinted at but could
// not show (a verdict within the noise whose medians differ by MinGain or
// more), 0 when more runs would not help.
func (r TrialResult) MoreRuns() int {
	if r.Verdict == NoGain && (r.Speedup >= MinGain || r.Speedup > 0 && r.Speedup <= 1/MinGain) {
		return 2 * max(len(r.RAM.Samples), 5)
	}
	return 0
}

// Sureness says what a verdict rests on: the medians, the ranges, and how
// likely chance alone would give a gain with this many runs (every run on
// one side beating every run on the other: 1 in C(2n, n)).
func (r TrialResult) Sureness() string { return r.SurenessIn(nil) }

// SurenessIn is Sureness in sp's language (nil: English, as Sureness).
func (r TrialResult) SurenessIn(sp i18n.Speaker) string {
	t := tongue{sp}
	n := min(len(r.RAM.Samples), len(r.Disk.Samples))
	if n < 2 {
		return ""
	}
	odds := 1.0
	for i := 1; i <= n; i++ {
		odds = odds * float64(n+i) / float64(i)
	}
	return t.T("medians %s on the RAM disk vs %s in place, %d timed runs each; a gain is reported only when every RAM run beats every run in place "+
		"and the medians differ by %.0f%% or more (chance alone does that 1 time in %.0f)",
		formatIn(t, r.RAM.Median, Secs), formatIn(t, r.Disk.Median, Secs), n, (MinGain-1)*100, odds)
}

// runLine is the progress line of a run: "make test on the RAM disk (run 2
// of 5)", "make test in place (warm-up)".
func (o TrialOptions) runLine(p Place, run, runs int) string {
	t, cmd := tongue{o.Speaker}, strings.Join(o.Argv, " ")
	switch {
	case p == OnRAM && run == 0:
		return t.T("%s on the RAM disk (warm-up)", cmd)
	case p == OnRAM:
		return t.T("%s on the RAM disk (run %d of %d)", cmd, run, runs)
	case run == 0:
		return t.T("%s in place (warm-up)", cmd)
	}
	return t.T("%s in place (run %d of %d)", cmd, run, runs)
}
