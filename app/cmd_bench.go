package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"rambar/bench"
	"rambar/i18n"
	"rambar/internal/signals"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "bench", Summary: i18n.N("measure RAM disks against the home folder's disk"),
		Doc: i18n.N("With no targets: the RAM disks RAMBar made for you and the home folder's disk (never a hand-made or another user's RAM disk). " +
			"One target is measured against the home folder's disk unless --no-compare. Each cell is the median of the runs, with min and max."),
		Args: []arg{{Name: "TARGET", Optional: true, Repeat: true, Doc: i18n.N("a mounted RAM disk's name, or a folder")}},
		Flags: []flagSpec{
			flagBool("quick", i18n.N("smaller sizes: seconds instead of minutes")),
			flagInt("runs", "N", 3, i18n.N("runs per row; the median, min and max are reported")),
			flagSpec{Name: "rows", Kind: stringFlag, Value: "ROW,...", Doc: i18n.N("the rows to run, comma-separated: %s (default: all)"),
				DocArg: rowNames()},
			flagString("svg", "FILE", i18n.N("also write an SVG chart to FILE")),
			flagBool("no-compare", i18n.N("with one target, measure only it (not the home folder's disk too)")),
			flagBool("compare", i18n.N("also measure the targets given with fio, dd and tar and print our figure against theirs")),
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
		ids, err := parseRows(*rows)
		if err != nil {
			return err
		}
		opts.Rows = ids
	}
	named, err := a.benchTargets(ctx, pos)
	if err != nil {
		return err
	}
	targets := named
	if len(pos) == 1 && !*noCompare {
		targets = bench.WithHomeDisk(named, a.Getenv("HOME"))
	}
	ctx, stop := signal.NotifyContext(ctx, signals.Stop(syscall.SIGPIPE)...) // SIGPIPE: `| head` must not skip the cleanup
	defer stop()
	p, done := a.progressLine(0)
	sp := a.say().speaker()
	opts.Speaker = sp
	rep, err := bench.Run(ctx, targets, opts, func(pr bench.Progress) { p(pr.In(sp)) })
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
		fmt.Fprint(a.Stdout, rep.TableIn(sp))
		fmt.Fprintln(a.Stdout, a.say().T("In short: %s", rep.HeadlineIn(sp)))
		if len(cmp) > 0 {
			fmt.Fprintln(a.Stdout)
			fmt.Fprint(a.Stdout, bench.ComparisonTableIn(cmp, sp))
		}
		if *svg != "" {
			fmt.Fprintln(a.Stdout, a.say().T("Chart written to %s", *svg))
		}
	}
	if probs := rep.Problems(); len(probs) > 0 {
		return fmt.Errorf("bench: %d row(s) not measured: %s", len(probs), strings.Join(probs, "; "))
	}
	return nil
}

// benchTargets turns the command line into targets: a RAM disk's name, or a
// folder (a RAM disk when it is one's mount point or a memory file system).
// With none given: RAMBar's own RAM disks that this user owns, and the home
// folder's disk.
func (a *App) benchTargets(ctx context.Context, pos []string) ([]bench.Target, error) {
	caps, vols := a.mounted(ctx)
	if len(pos) == 0 {
		home := a.Getenv("HOME")
		if home == "" {
			return nil, fmt.Errorf("%w: HOME is not set; name a folder to benchmark", errUsage)
		}
		var mine []ramdisk.Volume
		if svc, err := a.service(); err == nil {
			mine, _ = svc.Split(vols) // another RAMBar's disks only when named
		}
		return bench.DefaultTargets(mine, home, os.Getuid()), nil
	}
	var ts []bench.Target
	for _, p := range pos {
		if t, ok := targetByName(caps, vols, p); ok {
			ts = append(ts, t)
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errUsage, p, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, i18n.Errorf("%w: %q is neither a mounted RAM disk nor a folder", ramdisk.ErrNotFound, p)
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

// mounted is the engine's caps and the disks mounted now; none when there
// is no engine or the list fails (a folder can still be named).
func (a *App) mounted(ctx context.Context) (ramdisk.Caps, []ramdisk.Volume) {
	e, err := a.Engine()
	if err != nil {
		return ramdisk.Caps{}, nil
	}
	vols, _ := e.List(ctx)
	return e.Caps(), vols
}

// targetByName finds a mounted disk by name: exactly, or but for letter
// case where that names one disk (caps.SameName: macOS).
func targetByName(caps ramdisk.Caps, vols []ramdisk.Volume, name string) (bench.Target, bool) {
	for _, v := range vols {
		if v.Name == name {
			return bench.ForVolume(v), true
		}
	}
	for _, v := range vols {
		if caps.SameName(v.Name, name) {
			return bench.ForVolume(v), true
		}
	}
	return bench.Target{}, false
}

// rowNames lists the benchmark's rows for --rows.
func rowNames() string { return bench.RowList() }

// parseRows reads --rows: row names, comma-separated; one it does not know
// gets the nearest row and the list of them, as words.
func parseRows(list string) ([]bench.RowID, error) {
	var ids []bench.RowID
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		id, err := bench.ParseRow(s)
		if err == nil {
			ids = append(ids, id)
			continue
		}
		if errors.Is(err, ramdisk.ErrUnsupported) {
			return nil, fmt.Errorf("bench --rows: %w", err)
		}
		if best := nearest(s, rowIDs()); best != "" {
			return nil, usagef("bench --rows: unknown row %q; did you mean %s? rows: %s", s, best, bench.RowList())
		}
		return nil, usagef("bench --rows: unknown row %q; rows: %s", s, bench.RowList())
	}
	return ids, nil
}

// rowIDs are the rows' names.
func rowIDs() []string {
	var out []string
	for _, r := range bench.AllRows() {
		out = append(out, string(r))
	}
	return out
}
