package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"rambar/bench"
	"rambar/disks"
	"rambar/i18n"
	"rambar/internal/signals"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "try", Summary: i18n.N("find out whether a RAM disk makes a command faster"),
		Doc: i18n.N("It runs the command on a RAM disk copy of this folder and in place, alternating, after a warm-up; " +
			"a gain is reported only when it is beyond the noise."),
		Flags: []flagSpec{
			flagString("disk", "NAME|PATH", i18n.N("an existing RAM disk (name or mount point); default: a temporary one, ejected afterwards")),
			flagInt("runs", "N", 5, i18n.N("timed runs in each place, at least 3")),
			flagBool("keep-log", i18n.N("keep the log of the timed runs' output (removed otherwise)")),
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
	ctx, stop := signal.NotifyContext(ctx, signals.Stop(syscall.SIGPIPE)...)
	defer stop()

	a.cleanTryLeftovers(ctx)
	ramDir, diskLabel, release, err := a.tryPlace(ctx, *diskName, src)
	if err != nil {
		return err
	}
	defer release()

	logFile, keptLog, closeLog, err := tryLog(keepLog)
	if err != nil {
		return err
	}
	defer closeLog()
	p, done := a.progressLine(0)
	if say := a.say(); !*asJSON {
		fmt.Fprintln(a.Stdout, say.T("Trying %q: a copy of %s on %s, and in place; %d timed runs each after a warm-up.",
			strings.Join(argv, " "), src, diskLabel, *runs))
		if keepLog {
			fmt.Fprintln(a.Stdout, say.T("The warm-up run's output is shown; the others go to %s", keptLog))
		} else {
			fmt.Fprintln(a.Stdout, say.T("The warm-up run's output is shown; the others go to a log that is removed afterwards (--keep-log keeps it)"))
		}
	}
	stdout := a.Stdout
	if *asJSON {
		stdout = logFile
	}
	res, err := bench.Trial(ctx, bench.TrialOptions{
		Src: src, RAMDir: ramDir, Argv: argv, Runs: *runs,
		Stdout: stdout, Stderr: a.Stderr, Log: logFile,
		Progress: p, Speaker: a.say().speaker(),
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
	printTrial(a.say(), a.Stdout, res)
	return nil
}

// printTrial prints a trial's figures and its verdict, with what the
// verdict rests on.
func printTrial(say speech, w io.Writer, res bench.TrialResult) {
	sp := say.speaker()
	fmt.Fprintf(w, "  %s\n  %s\n", say.T("RAM disk: %s", res.RAM.CellIn(sp)), say.T("in place: %s", res.Disk.CellIn(sp)))
	fmt.Fprintf(w, "%s\n", capitalize(res.SummaryIn(sp)))
	switch sure, more := res.SurenessIn(sp), res.MoreRuns(); {
	case sure != "" && more > 0:
		fmt.Fprintln(w, say.T("(%s; more runs can tell: --runs %d)", sure, more))
	case sure != "":
		fmt.Fprintln(w, say.T("(%s)", sure))
	}
}

// findRAMDir resolves --disk: a mounted RAM disk's name, or the path of a
// folder on a RAM disk.
func (a *App) findRAMDir(ctx context.Context, s string) (bench.Target, error) {
	caps, vols := a.mounted(ctx)
	if t, ok := targetByName(caps, vols, s); ok {
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
	return bench.Target{}, i18n.Errorf("--disk %q: %w (give a mounted RAM disk's name or mount point)", s, ramdisk.ErrNotFound)
}

// tempDisk makes the trial's temporary RAM disk (disks.Service.MakeTryDisk,
// sized for the folder) and says so. It returns the volume and a func that
// ejects it, even after Ctrl-C.
func (a *App) tempDisk(ctx context.Context, src string) (ramdisk.Volume, func() error, error) {
	bytes, files, err := bench.TreeSize(src)
	if err != nil {
		return ramdisk.Volume{}, nil, fmt.Errorf("try: measure %s: %w", src, err)
	}
	svc, err := a.service()
	if err != nil {
		return ramdisk.Volume{}, nil, fmt.Errorf("try: %w", err)
	}
	v, eject, err := svc.MakeTryDisk(ctx, bytes, files)
	if err != nil {
		return ramdisk.Volume{}, nil, fmt.Errorf("try: %w", err)
	}
	fmt.Fprintln(a.Stderr, a.say().T("Made a temporary RAM disk %s at %s; it is ejected afterwards.", v.Name, v.MountPoint))
	return v, eject, nil
}

// tryPlace is where the trial runs: the RAM disk --disk names, or a
// temporary one that release ejects.
func (a *App) tryPlace(ctx context.Context, diskName, src string) (dir, label string, release func(), err error) {
	if diskName != "" {
		t, err := a.findRAMDir(ctx, diskName)
		if err != nil {
			return "", "", nil, err
		}
		return t.Dir, t.Name, func() {}, nil
	}
	v, eject, err := a.tempDisk(ctx, src)
	if err != nil {
		return "", "", nil, err
	}
	release = func() {
		if eerr := eject(); eerr != nil {
			fmt.Fprintln(a.Stderr, a.say().T("rambar: try: eject the temporary RAM disk %s: %v", v.Name, eerr))
		}
	}
	return v.MountPoint, a.say().T("%s (temporary)", v.Name), release, nil
}

// tryLog makes the log of the timed runs' output. Unless keep, it is
// named after this process and removed by closeLog (or, after a kill -9,
// by the next try); keptLog is its path when kept, "" otherwise.
func tryLog(keep bool) (f *os.File, keptLog string, closeLog func(), err error) {
	pattern := disks.TryLogPattern(os.Getpid())
	if keep {
		pattern = "rambar-try-*.log"
	}
	if f, err = os.CreateTemp("", pattern); err != nil {
		return nil, "", nil, fmt.Errorf("try: log: %w", err)
	}
	closeLog = func() {
		f.Close()
		if !keep {
			os.Remove(f.Name())
		}
	}
	if keep {
		keptLog = f.Name()
	}
	return f, keptLog, closeLog, nil
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
		fmt.Fprintln(a.Stderr, a.say().T("Ejected %s, left by a try that was stopped.", n))
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
	fmt.Fprintf(a.Stderr, "%s\n%s\n---\n", a.say().T("--- the failed run's last output ---"), strings.Join(lines, "\n"))
}

// capitalize starts s with a capital letter (a verdict at the start of a
// line).
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
