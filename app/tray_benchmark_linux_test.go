//go:build linux

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/bench"
	"rambar/ramdisk"
)

// The menu's Benchmark This Disk on a real tmpfs against the home disk:
// progress over every step, bench's compact table, the headline, and the
// chart saved in the data folder (0700 folder, 0600 file) under a name
// made safe from the disk's.
func TestTrayBenchmark(t *testing.T) {
	ram := benchMountTmpfs(t, "64m")
	a, _, _, errOut := benchTestApp(t)
	a.Paths.Data = filepath.Join(t.TempDir(), "data")
	run := a.trayBenchmark(bench.Options{Quick: true, Runs: 1, Rows: []bench.RowID{"fsync"}})
	var steps []int64
	res, err := run(context.Background(), ramdisk.Volume{Name: "../Scratch disk", MountPoint: ram}, func(done, total int64) {
		if total != 2 {
			t.Errorf("progress total %d, want 2 (one row, two targets)", total)
		}
		steps = append(steps, done)
	})
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	if len(steps) != 2 || steps[1] != 2 {
		t.Errorf("progress %v", steps)
	}
	for _, want := range []string{"../Scratch disk (tmpfs) vs Home disk (", "4 KiB write + fsync", " µs", "RAM disk is"} {
		if !strings.Contains(res.Table, want) {
			t.Errorf("table lacks %q:\n%s", want, res.Table)
		}
	}
	if !strings.HasPrefix(res.Headline, "../Scratch disk vs Home disk") {
		t.Errorf("headline %q", res.Headline)
	}
	want := filepath.Join(a.Paths.Data, "benchmarks", "___Scratch_disk.svg")
	if res.Chart != want {
		t.Fatalf("chart %q, want %q", res.Chart, want)
	}
	if b, err := os.ReadFile(want); err != nil || !strings.HasPrefix(string(b), "<svg ") {
		t.Errorf("chart: %v", err)
	}
	for path, mode := range map[string]os.FileMode{filepath.Dir(want): 0o700 | os.ModeDir, want: 0o600} {
		if st, err := os.Stat(path); err != nil {
			t.Error(err)
		} else if st.Mode() != mode {
			t.Errorf("%s: mode %v, want %v", path, st.Mode(), mode)
		}
	}
}
