package bench

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCompactGolden: the menu's monospace table, kept in testdata (go test
// -update rewrites it): every line within CompactWidth, the same medians
// and speed-ups as the chart, the n/a row once, the row one side could not
// run explained under the table.
func TestCompactGolden(t *testing.T) {
	rep := chartReport()
	rep.Quick = true
	seq := rep.Targets[0].Results[0]
	seq.Note = "cached (O_DIRECT unsupported on tmpfs)"
	rep.Targets[0].Results[0] = seq
	for _, c := range []struct {
		file string
		rep  Report
		want []string
	}{
		{"compact.txt", rep, []string{
			"Scratch (tmpfs) vs Home disk (ext4), median of 3 runs, quick sizes.\n",
			"1 GiB write, uncached ", "7,357 MiB/s¹  1,274 MiB/s    5.8× faster\n",
			"3.0 µs      1,707 µs    569× faster\n",
			"4 KiB write + F_FULLFSYNC", "n/a (F_FULLFSYNC is macOS only)\n",
			"210× faster\n", "~1.1× (noise)\n", "2.0× slower\n",
			"¹ cached (O_DIRECT unsupported on tmpfs)\n",
			"Not measured: SQLite insert, PRAGMA synchronous=FULL on Home disk:\n sqlite3 not installed\n",
		}},
		{"compact-one-target.txt", Report{Runs: 1, Rows: chartReport().Rows[:2], Targets: chartReport().Targets[:1]}, []string{
			"Scratch (tmpfs), median of 1 run, full sizes; no RAM disk and ordinary\n disk to compare.\n",
			"1 GiB write, uncached  7,357 MiB/s\n",
		}},
	} {
		got := c.rep.Compact()
		if want := golden(t, c.file, got); got != want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.file, got, want)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", c.file, w, got)
			}
		}
		if n := strings.Count(got, "F_FULLFSYNC is macOS only"); c.file == "compact.txt" && n != 1 {
			t.Errorf("%s: the n/a reason %d times:\n%s", c.file, n, got)
		}
		if c.file == "compact.txt" {
			// The CLI's table and headline give the same figures.
			table, head := c.rep.Table(), c.rep.Headline()
			for _, w := range []string{"7,357 MiB/s", "1,274 MiB/s", "5.8×", "569×", "210×", "~1.1×", "0.5×"} {
				if !strings.Contains(table, w) {
					t.Errorf("rambar bench's table lacks %q:\n%s", w, table)
				}
			}
			if !strings.Contains(head, "4 KiB write + fsync (569×)") {
				t.Errorf("headline %q", head)
			}
		}
		for _, l := range strings.Split(got, "\n") {
			if utf8.RuneCountInString(l) > CompactWidth {
				t.Errorf("%s: line of %d columns: %q", c.file, utf8.RuneCountInString(l), l)
			}
		}
	}
}
