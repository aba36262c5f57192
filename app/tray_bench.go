package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rambar/bench"
	"rambar/internal/atomicfile"
	"rambar/ramdisk"
	"rambar/tray"
)

// trayBenchmark is the menu's Benchmark This Disk (opts: quick sizes): the
// disk against the home folder's disk (bench.WithHomeDisk, as `rambar bench
// NAME` does), shown as bench's compact table, with the chart saved in
// RAMBar's data folder (chartPath) to be opened from the result window.
func (a *App) trayBenchmark(opts bench.Options) tray.BenchmarkFunc {
	return func(ctx context.Context, v ramdisk.Volume, progress tray.ProgressFunc) (tray.BenchmarkResult, error) {
		rep, err := bench.Run(ctx, bench.WithHomeDisk([]bench.Target{bench.ForVolume(v)}, a.Getenv("HOME")), opts,
			func(p bench.Progress) { progress(int64(p.Step), int64(p.Steps)) })
		if err != nil {
			return tray.BenchmarkResult{}, err
		}
		sp := a.say().speaker() // the menu's language
		res := tray.BenchmarkResult{Table: rep.CompactIn(sp), Headline: rep.HeadlineIn(sp)}
		if a.Paths.Data != "" {
			path := chartPath(a.Paths.Data, v.Name)
			if err := writePrivate(path, []byte(rep.SVG())); err != nil {
				fmt.Fprintf(a.Stderr, "rambar: warning: benchmark chart: %v\n", err)
			} else {
				res.Chart = path
			}
		}
		return res, nil
	}
}

// chartPath is where the menu keeps the last benchmark chart of a disk:
// data/benchmarks/NAME.svg, the name reduced to letters, digits, '-' and
// '_' (a volume's name is not trusted to make a path).
func chartPath(data, name string) string {
	safe := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
	return filepath.Join(data, "benchmarks", safe+".svg")
}

// writePrivate replaces path with b atomically (it can be lost: the next
// benchmark writes it again), making its folder (0700) when missing; the
// file is the user's only (0600).
func writePrivate(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("mkdir: %w", err)
	}
	return atomicfile.WriteFast(path, b, 0o600)
}
