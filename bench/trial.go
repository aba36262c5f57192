package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"rambar/i18n"
	"rambar/internal/diskspace"
	"rambar/ramdisk"
)

// TrialOptions say what Trial runs and where.
type TrialOptions struct {
	// Src is the folder the command works in (the current folder); it is
	// copied to RAMDir and the command runs in the copy and in Src.
	Src string
	// RAMDir is a folder on a RAM disk. The copy is made in a private
	// subfolder and removed when Trial returns.
	RAMDir string
	// Argv is the command and its arguments, run directly (never by a shell).
	Argv []string
	// Runs is the number of timed runs in each place; 0 means 5; at least 3.
	Runs int
	// Stdout and Stderr get the command's output of the first (warm-up) run.
	Stdout, Stderr io.Writer
	// Log gets the output of every later run (nil: discarded).
	Log io.Writer
	// Progress gets a line before each run (nil: none).
	Progress func(string)
	// Speaker says the progress lines in a person's language (nil: English).
	Speaker i18n.Speaker
}

// Place is where a trial run ran.
type Place string

// The two places.
const (
	OnRAM  Place = "ram"
	InSitu Place = "disk"
)

// Words names the place in a sentence (an error's English).
func (p Place) Words() string {
	if p == OnRAM {
		return "on the RAM disk"
	}
	return "in place"
}

// TrialRun is one timed run of the command.
type TrialRun struct {
	Place   Place   `json:"place"`
	Run     int     `json:"run"` // 0 is the warm-up, not counted
	Seconds float64 `json:"seconds"`
}

// Verdict is the trial's conclusion.
type Verdict string

// The verdicts.
const (
	Faster  Verdict = "faster"
	Slower  Verdict = "slower"
	NoGain  Verdict = "noise"
	Unknown Verdict = "unknown" // too few runs to say
)

// MinGain is the smallest speedup reported as one: a difference under 5%
// is not worth a RAM disk even when it is consistent.
const MinGain = 1.05

// TrialResult is what Trial found.
type TrialResult struct {
	Argv      []string   `json:"argv"`
	Src       string     `json:"src"`
	Copy      string     `json:"copy"` // where the copy was (removed)
	CopyBytes int64      `json:"copy_bytes"`
	CopyFiles int        `json:"copy_files"`
	CopySecs  float64    `json:"copy_seconds"`
	RAM       Result     `json:"ram"`  // seconds per run on the RAM disk
	Disk      Result     `json:"disk"` // seconds per run in place
	Runs      []TrialRun `json:"runs"`
	Speedup   float64    `json:"speedup"` // disk median / RAM median
	Verdict   Verdict    `json:"verdict"`
}

// decide compares the timed runs on the RAM disk with those in place.
//
// The rule: the RAM disk is faster only when every RAM run beat every run in
// place (the min–max ranges do not overlap; in Mann-Whitney terms U = 0, which
// with n runs on each side happens by chance with probability 1/C(2n, n) on
// each side: 5% for 3 runs, 0.8% for 5) and the medians differ by at least
// MinGain. Slower is the mirror image. Anything else is "no measurable gain
// (within the noise)".
func decide(ram, disk []float64) (speedup float64, v Verdict) {
	if len(ram) < 2 || len(disk) < 2 {
		return 0, Unknown
	}
	a := append([]float64(nil), ram...)
	b := append([]float64(nil), disk...)
	sort.Float64s(a)
	sort.Float64s(b)
	mr, md := median(a), median(b)
	if mr <= 0 || md <= 0 {
		return 0, NoGain
	}
	speedup = md / mr
	switch {
	case a[len(a)-1] < b[0] && speedup >= MinGain:
		return speedup, Faster
	case b[len(b)-1] < a[0] && speedup <= 1/MinGain:
		return speedup, Slower
	}
	return speedup, NoGain
}

// CommandError is a run of the user's command that failed.
type CommandError struct {
	Place    Place
	Run      int // 0: the warm-up
	ExitCode int // -1 when it did not exit normally (signal, not found)
	Err      error
}

// Error says where the command failed and how: "the command failed on the
// RAM disk (the warm-up run): exit status 3".
func (e *CommandError) Error() string {
	run := fmt.Sprintf("run %d", e.Run)
	if e.Run == 0 {
		run = "the warm-up run"
	}
	if e.ExitCode > 0 {
		return fmt.Sprintf("the command failed %s (%s): exit status %d", e.Place.Words(), run, e.ExitCode)
	}
	return fmt.Sprintf("the command failed %s (%s): %v", e.Place.Words(), run, e.Err)
}

// Unwrap returns the underlying *exec.ExitError or start failure.
func (e *CommandError) Unwrap() error { return e.Err }

// Trial copies o.Src to o.RAMDir, runs o.Argv there and in o.Src, alternating
// (a warm-up pair first, then RAM/disk and disk/RAM pairs in turn so neither
// place always goes first), and decides with decide. The command's output
// goes to Stdout/Stderr on the warm-up run and to Log after. The copy is
// removed when Trial returns, whether the command failed, ctx was cancelled
// (the running command gets SIGINT, then SIGKILL after 10 s) or all went
// well. A failing command stops the trial with a *CommandError.
func Trial(ctx context.Context, o TrialOptions) (res TrialResult, err error) {
	res.Argv, res.Src = o.Argv, o.Src
	runs, err := o.check()
	if err != nil {
		return res, err
	}
	if o.Progress == nil {
		o.Progress = func(string) {}
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	bytes, files, err := o.room()
	if err != nil {
		return res, err
	}
	res.CopyBytes, res.CopyFiles = bytes, files
	holder, err := os.MkdirTemp(o.RAMDir, ".rambar-try-")
	if err != nil {
		return res, fmt.Errorf("try: %w", err)
	}
	defer func() {
		if rmErr := os.RemoveAll(holder); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("try: remove the copy %s: %w", holder, rmErr))
		}
	}()
	res.Copy = filepath.Join(holder, filepath.Base(o.Src))
	o.Progress(tongue{o.Speaker}.T("copying %s (%s, %d files) to the RAM disk", o.Src, bytesText(bytes), files))
	t0 := time.Now()
	if err := copyTree(ctx, o.Src, res.Copy); err != nil {
		return res, fmt.Errorf("try: copy to the RAM disk: %w", err)
	}
	res.CopySecs = time.Since(t0).Seconds()
	res.RAM, res.Disk = Result{Unit: Secs}, Result{Unit: Secs}
	if err := o.alternate(ctx, runs, &res); err != nil {
		return res, err
	}
	summarize(&res.RAM)
	summarize(&res.Disk)
	res.RAM.Ops, res.Disk.Ops = 1, 1
	res.Speedup, res.Verdict = decide(res.RAM.Samples, res.Disk.Samples)
	return res, nil
}

// check validates the options and returns the number of timed runs.
func (o TrialOptions) check() (int, error) {
	if len(o.Argv) == 0 {
		return 0, errors.New("try: no command given")
	}
	runs := o.Runs
	if runs == 0 {
		runs = 5
	}
	if runs < 3 {
		return 0, fmt.Errorf("try: at least 3 runs are needed to tell a gain from noise, not %d", runs)
	}
	if isInside(o.Src, o.RAMDir) {
		return 0, fmt.Errorf("try: %s is already on the RAM disk at %s; run it from a folder on an ordinary disk", o.Src, o.RAMDir)
	}
	if isInside(o.RAMDir, o.Src) {
		return 0, fmt.Errorf("try: the RAM disk folder %s is inside %s, which would be copied into itself", o.RAMDir, o.Src)
	}
	return runs, nil
}

// room measures the source and checks the RAM disk can hold it twice (the
// copy and as much again for what the command writes).
func (o TrialOptions) room() (bytes int64, files int, err error) {
	bytes, files, err = TreeSize(o.Src)
	if err != nil {
		return 0, 0, fmt.Errorf("try: measure %s: %w", o.Src, err)
	}
	free, err := diskspace.Free(o.RAMDir)
	if err != nil {
		return 0, 0, fmt.Errorf("try: %w", err)
	}
	if need := 2*bytes + int64(files)*4096 + 16<<20; free < need {
		return 0, 0, fmt.Errorf("try: %w: %s holds %s; the RAM disk at %s has %s free (needs %s with room for the command's output)",
			ramdisk.ErrNoSpace, o.Src, bytesText(bytes), o.RAMDir, bytesText(free), bytesText(need))
	}
	return bytes, files, nil
}

// alternate runs the command on the RAM disk copy and in place: a warm-up
// pair (its RAM-disk output shown on the terminal writers), then runs pairs,
// the order swapped every other pair, each sample recorded in res.
func (o TrialOptions) alternate(ctx context.Context, runs int, res *TrialResult) error {
	dirOf := map[Place]string{OnRAM: res.Copy, InSitu: o.Src}
	for run := 0; run <= runs; run++ {
		order := []Place{OnRAM, InSitu}
		if run%2 == 0 && run > 0 {
			order = []Place{InSitu, OnRAM}
		}
		for _, p := range order {
			if err := ctx.Err(); err != nil {
				return err
			}
			what := fmt.Sprintf("run %d of %d", run, runs)
			if run == 0 {
				what = "warm-up"
			}
			o.Progress(o.runLine(p, run, runs))
			stdout, stderr := o.Log, o.Log
			if run == 0 && p == OnRAM {
				stdout, stderr = o.Stdout, o.Stderr
			}
			if run > 0 || p == InSitu {
				fmt.Fprintf(o.Log, "==== rambar try: %s, %s, in %s\n", p.Words(), what, dirOf[p])
			}
			secs, err := runOnce(ctx, o.Argv, dirOf[p], p, stdout, stderr)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				code := -1
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
				}
				return &CommandError{Place: p, Run: run, ExitCode: code, Err: err}
			}
			res.Runs = append(res.Runs, TrialRun{Place: p, Run: run, Seconds: secs})
			switch {
			case run == 0:
			case p == OnRAM:
				res.RAM.Samples = append(res.RAM.Samples, secs)
			default:
				res.Disk.Samples = append(res.Disk.Samples, secs)
			}
		}
	}
	return nil
}

// isInside reports whether path is dir or inside it.
func isInside(path, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// runOnce runs argv in dir and returns its wall time. Cancelling ctx sends
// the command SIGINT, as a terminal's Ctrl-C would, and SIGKILL 10 s later.
func runOnce(ctx context.Context, argv []string, dir string, p Place, stdout, stderr io.Writer) (float64, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RAMBAR_TRY_PLACE="+string(p), "PWD="+dir)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 10 * time.Second
	t0 := time.Now()
	err := cmd.Run()
	return time.Since(t0).Seconds(), err
}

// TreeSize returns the bytes and number of regular files under dir.
func TreeSize(dir string) (bytes int64, files int, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			bytes += info.Size()
			files++
		}
		return nil
	})
	return bytes, files, err
}

// copyTree copies the folder src to dst (which must not exist): folders,
// regular files with their modes and modification times (so make and other
// build tools see the same state), and symbolic links as links. Sockets,
// devices and pipes are skipped.
func copyTree(ctx context.Context, src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(to, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case d.Type().IsRegular():
			if err := copyFile(p, to, info); err != nil {
				return err
			}
		}
		return nil
	})
}

func copyFile(from, to string, info fs.FileInfo) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(to, info.ModTime(), info.ModTime())
}
