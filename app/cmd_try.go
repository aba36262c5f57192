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
	"rambar/disks"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "try", Summary: "find out whether a RAM disk makes a command faster",
		Doc: "It runs the command on a RAM disk copy of this folder and in place, alternating, after a warm-up; " +
			"a gain is reported only when it is beyond the noise.",
		Flags: []flagSpec{
			flagString("disk", "NAME|PATH", "an existing RAM disk (name or mount point); default: a temporary one, ejected afterwards"),
			flagInt("runs", "N", 5, "timed runs in each place, at least 3"),
			flagBool("keep-log", "keep the log of the timed runs' output (removed otherwise)"),
		},
		JSON: true, Command: true, Example: "try -- make test\ntry --disk Scratch --runs 7 -- go build ./...", Order: 61, Run: runTry})
}

func runTry(ctx context.Context, a *App, in *input) error {
	diskName, runs, asJSON, argv := in.String("disk"), in.Int("runs"), in.Bool("json"), in.Rest
	keepLog := *in.Bool("keep-log")
	if *runs < 3 || *runs > 100 {
		return fmt.Errorf("%w: --runs must be between 3 and 100 (fewer cannot tell a gain from noise), not %d", errUsage, *runs)
	}
	src, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("try: %w", err)
	}
	// SIGPIPE too (rambar try … | head): a write to the closed pipe then
	// fails instead of killing the process before it cleans up.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	defer stop()

	a.cleanTryLeftovers(ctx)
	var ramDir, diskLabel string
	if *diskName != "" {
		t, err := a.findRAMDir(ctx, *diskName)
		if err != nil {
			return err
		}
		ramDir, diskLabel = t.Dir, t.Name
	} else {
		v, eject, err := a.tempDisk(ctx, src)
		if err != nil {
			return err
		}
		defer func() {
			if eerr := eject(); eerr != nil {
				fmt.Fprintf(a.Stderr, "rambar: try: eject the temporary RAM disk %s: %v\n", v.Name, eerr)
			}
		}()
		ramDir, diskLabel = v.MountPoint, v.Name+" (temporary)"
	}

	pattern := disks.TryLogPattern(os.Getpid()) // removed at the end, or by the next try
	if keepLog {
		pattern = "rambar-try-*.log"
	}
	logFile, err := os.CreateTemp("", pattern)
	if err != nil {
		return fmt.Errorf("try: log: %w", err)
	}
	defer func() {
		logFile.Close()
		if !keepLog {
			os.Remove(logFile.Name())
		}
	}()
	keptLog, logName := "", "a log that is removed afterwards (--keep-log keeps it)"
	if keepLog {
		keptLog, logName = logFile.Name(), logFile.Name()
	}
	p, done := a.progressLine(0)
	if !*asJSON {
		fmt.Fprintf(a.Stdout, "Trying %q: a copy of %s on %s, and in place; %d timed runs each after a warm-up.\n",
			strings.Join(argv, " "), src, diskLabel, *runs)
		fmt.Fprintf(a.Stdout, "The warm-up run's output is shown; the others go to %s\n", logName)
	}
	stdout := a.Stdout
	if *asJSON {
		stdout = logFile
	}
	res, err := bench.Trial(ctx, bench.TrialOptions{
		Src: src, RAMDir: ramDir, Argv: argv, Runs: *runs,
		Stdout: stdout, Stderr: a.Stderr, Log: logFile,
		Progress: p,
	})
	done()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("try: %w (the RAM disk copy was removed)", ramdisk.ErrCancelled)
		}
		var ce *bench.CommandError
		if errors.As(err, &ce) {
			if !keepLog {
				showTail(a, logFile.Name())
				return fmt.Errorf("try: %v; nothing was measured (its output is above; --keep-log keeps it all)", ce)
			}
			return fmt.Errorf("try: %v; nothing was measured (output: %s)", ce, logFile.Name())
		}
		return err
	}
	if *asJSON {
		return writeJSON(a.Stdout, toTryJSON(res, keptLog))
	}
	fmt.Fprintf(a.Stdout, "  RAM disk: %s\n  in place: %s\n", res.RAM.Cell(), res.Disk.Cell())
	fmt.Fprintf(a.Stdout, "%s\n", capitalize(res.Summary()))
	if res.Verdict == bench.NoGain {
		fmt.Fprintf(a.Stdout, "(medians %s vs %s; a gain is reported only when every RAM run beats every run in place by %.0f%% or more at the median)\n",
			bench.Format(res.RAM.Median, bench.Secs), bench.Format(res.Disk.Median, bench.Secs), (bench.MinGain-1)*100)
	}
	return nil
}

// findRAMDir resolves --disk: a mounted RAM disk's name, or the path of a
// folder on a RAM disk.
func (a *App) findRAMDir(ctx context.Context, s string) (bench.Target, error) {
	var vols []ramdisk.Volume
	if e, err := a.Engine(); err == nil {
		vols, _ = e.List(ctx)
	}
	if t, ok := targetByName(vols, s); ok {
		return t, nil
	}
	if strings.ContainsRune(s, filepath.Separator) {
		abs, err := filepath.Abs(s)
		if err == nil {
			if st, err := os.Stat(abs); err == nil && st.IsDir() {
				for _, v := range vols {
					if v.MountPoint == abs {
						return bench.Target{Name: v.Name, Dir: abs, RAM: true}, nil
					}
				}
				if bench.IsMemoryFS(abs) {
					return bench.Target{Name: abs, Dir: abs, RAM: true}, nil
				}
				return bench.Target{}, fmt.Errorf("%w: %s is not on a RAM disk", errUsage, s)
			}
		}
	}
	return bench.Target{}, fmt.Errorf("--disk %q: %w (give a mounted RAM disk's name or mount point)", s, ramdisk.ErrNotFound)
}

// tempDisk makes a RAM disk for the trial: room for the folder twice over
// (the copy and what the command writes), at least 512 MiB; on macOS at
// least the size from which memory is taken only as written, which then
// costs nothing more. It returns the volume and a func that ejects it.
func (a *App) tempDisk(ctx context.Context, src string) (ramdisk.Volume, func() error, error) {
	bytes, files, err := bench.TreeSize(src)
	if err != nil {
		return ramdisk.Volume{}, nil, fmt.Errorf("try: measure %s: %w", src, err)
	}
	f, err := a.facts(ctx)
	if err != nil {
		return ramdisk.Volume{}, nil, fmt.Errorf("try: %w", err)
	}
	size := ramdisk.Size(2*bytes+int64(files)*4096) + 256*ramdisk.MiB
	size = max(size, 512*ramdisk.MiB)
	if lazy := f.Caps.LazyThreshold; lazy > 0 && size < lazy {
		size = lazy
	}
	size = ramdisk.Size(size.MiBs()) * ramdisk.MiB // whole MiB, as ram:// and tmpfs sizes are
	name := disks.TryDiskName(os.Getpid())
	plan, err := ramdisk.NewPlan(ramdisk.Request{Name: name, Size: size, Hidden: true}, f)
	if err != nil {
		return ramdisk.Volume{}, nil, fmt.Errorf("try: temporary RAM disk: %w", err)
	}
	e, _ := a.Engine()
	v, err := e.Create(ctx, plan)
	if err != nil {
		return ramdisk.Volume{}, nil, fmt.Errorf("try: make a temporary RAM disk (or name one with --disk): %w", err)
	}
	fmt.Fprintf(a.Stderr, "Made a temporary RAM disk %s at %s; it is ejected afterwards.\n", v.Name, v.MountPoint)
	eject := func() error {
		// Cleanup must happen even when ctx was cancelled by Ctrl-C.
		return e.Eject(context.WithoutCancel(ctx), v, true)
	}
	return v, eject, nil
}

// cleanTryLeftovers ejects the temporary disks, and removes the logs, of
// tries that were killed.
func (a *App) cleanTryLeftovers(ctx context.Context) {
	svc, err := a.service()
	if err != nil {
		return
	}
	disks.CleanTryLogs(os.TempDir())
	gone, err := svc.CleanTryDisks(ctx)
	for _, n := range gone {
		fmt.Fprintf(a.Stderr, "Ejected %s, left by a try that was stopped.\n", n)
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "rambar: try: %v\n", err)
	}
}

// showTail copies the last lines of the log to stderr.
func showTail(a *App, path string) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	fmt.Fprintf(a.Stderr, "--- the failed run's last output ---\n%s\n---\n", strings.Join(lines, "\n"))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
