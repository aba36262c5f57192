package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"rambar/bench"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "bench", Summary: "measure RAM disks against the home folder's disk",
		Doc: "With no targets: the RAM disks RAMBar made for you and the home folder's disk (never a hand-made or another user's RAM disk). " +
			"One target is measured against the home folder's disk unless --no-compare. Each cell is the median of the runs, with min and max.",
		Args: []arg{{Name: "TARGET", Optional: true, Repeat: true, Doc: "a mounted RAM disk's name, or a folder"}},
		Flags: []flagSpec{
			flagBool("quick", "smaller sizes: seconds instead of minutes"),
			flagInt("runs", "N", 3, "runs per row; the median, min and max are reported"),
			flagString("rows", "ROW,...", "the rows to run, comma-separated: "+rowNames()+" (default: all)"),
			flagString("svg", "FILE", "also write an SVG chart to FILE"),
			flagBool("no-compare", "with one target, measure only it (not the home folder's disk too)"),
			flagBool("compare", "also measure the targets given with fio, dd and tar and print our figure against theirs"),
		},
		JSON: true, Example: "bench\nbench Scratch --quick --svg bench.svg\nbench Scratch ~/src", Order: 60, Run: runBench})
}

func runBench(ctx context.Context, a *App, in *input) error {
	quick, runs, rows, asJSON := in.Bool("quick"), in.Int("runs"), in.String("rows"), in.Bool("json")
	svg, compare, noCompare, pos := in.String("svg"), in.Bool("compare"), in.Bool("no-compare"), in.Args
	if *runs < 1 || *runs > 100 {
		return fmt.Errorf("%w: --runs must be between 1 and 100, not %d", errUsage, *runs)
	}
	opts := bench.Options{Quick: *quick, Runs: *runs}
	if *rows != "" {
		for _, s := range strings.Split(*rows, ",") {
			id, err := bench.ParseRow(strings.TrimSpace(s))
			if err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			opts.Rows = append(opts.Rows, id)
		}
	}
	named, err := a.benchTargets(ctx, pos)
	if err != nil {
		return err
	}
	targets := named
	if len(pos) == 1 && !*noCompare {
		targets = bench.WithHomeDisk(named, a.Getenv("HOME"))
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE) // SIGPIPE: `| head` must not skip the cleanup
	defer stop()
	p, done := a.progressLine(0)
	rep, err := bench.Run(ctx, targets, opts, func(pr bench.Progress) { p(pr.String()) })
	done()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("bench: %w (its files were removed)", ramdisk.ErrCancelled)
		}
		return fmt.Errorf("bench: %w", err)
	}
	var cmp []bench.Comparison
	if *compare {
		for _, t := range named { // what was asked about, not the home disk added to compare with
			c, err := bench.Compare(ctx, t, opts, p)
			done()
			if err != nil {
				return fmt.Errorf("bench --compare %s: %w", t.Name, err)
			}
			cmp = append(cmp, c...)
		}
	}
	if *svg != "" {
		if err := os.WriteFile(*svg, []byte(rep.SVG()), 0o644); err != nil {
			return fmt.Errorf("bench --svg: %w", err)
		}
	}
	if *asJSON {
		out := struct {
			bench.Report
			Comparisons []bench.Comparison `json:"comparisons,omitempty"`
		}{rep, cmp}
		if err := writeJSON(a.Stdout, out); err != nil {
			return err
		}
	} else {
		fmt.Fprint(a.Stdout, rep.Table())
		fmt.Fprintf(a.Stdout, "In short: %s\n", rep.Headline())
		if len(cmp) > 0 {
			fmt.Fprintln(a.Stdout)
			fmt.Fprint(a.Stdout, bench.ComparisonTable(cmp))
		}
		if *svg != "" {
			fmt.Fprintf(a.Stdout, "Chart written to %s\n", *svg)
		}
	}
	if probs := rep.Problems(); len(probs) > 0 {
		return fmt.Errorf("bench: %d row(s) not measured: %s", len(probs), strings.Join(probs, "; "))
	}
	return nil
}

// mineOnly keeps the disks this data folder made (bench writes its files
// on them): another RAMBar's disks are benchmarked only when named.
func (a *App) mineOnly(vols []ramdisk.Volume) []ramdisk.Volume {
	svc, err := a.service()
	if err != nil {
		return nil
	}
	var out []ramdisk.Volume
	for _, v := range vols {
		if svc.Mine(v) {
			out = append(out, v)
		}
	}
	return out
}

// benchTargets turns the command line into targets: a RAM disk's name, or a
// folder (a RAM disk when it is one's mount point or a memory file system).
// With none given: RAMBar's own RAM disks that this user owns, and the home
// folder's disk.
func (a *App) benchTargets(ctx context.Context, pos []string) ([]bench.Target, error) {
	var vols []ramdisk.Volume
	if e, err := a.Engine(); err == nil {
		vols, _ = e.List(ctx)
	}
	if len(pos) == 0 {
		home := a.Getenv("HOME")
		if home == "" {
			return nil, fmt.Errorf("%w: HOME is not set; name a folder to benchmark", errUsage)
		}
		return bench.DefaultTargets(a.mineOnly(vols), home, os.Getuid()), nil
	}
	var ts []bench.Target
	for _, p := range pos {
		if t, ok := targetByName(vols, p); ok {
			ts = append(ts, t)
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errUsage, p, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is neither a mounted RAM disk nor a folder", ramdisk.ErrNotFound, p)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%w: %s is not a folder", errUsage, p)
		}
		t := bench.Target{Name: abs, Dir: abs, RAM: bench.IsMemoryFS(abs)}
		for _, v := range vols {
			if v.MountPoint == abs {
				t.Name, t.RAM = v.Name, true
			}
		}
		ts = append(ts, t)
	}
	return ts, nil
}

func targetByName(vols []ramdisk.Volume, name string) (bench.Target, bool) {
	for _, v := range vols {
		if v.Name == name {
			return bench.ForVolume(v), true
		}
	}
	for _, v := range vols {
		if strings.EqualFold(v.Name, name) {
			return bench.ForVolume(v), true
		}
	}
	return bench.Target{}, false
}

// rowNames lists the benchmark's rows for --rows.
func rowNames() string {
	rows := bench.AllRows()
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}
