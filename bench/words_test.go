package bench

import (
	"strings"
	"testing"
)

// TestRunsSingular: one run is "1 run", in the table and the chart.
func TestRunsSingular(t *testing.T) {
	for _, c := range []struct {
		runs int
		want string
	}{{1, "of 1 run "}, {1, "of 1 run;"}, {3, "of 3 runs "}, {3, "of 3 runs;"}} {
		r := Report{Runs: c.runs}
		if got := r.Table() + r.SVG(); !strings.Contains(got, c.want) {
			t.Errorf("runs %d: no %q in\n%s", c.runs, c.want, got)
		}
	}
}
