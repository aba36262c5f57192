package darwin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"rambar/internal/run"
)

func runCmd(argv []string) run.Cmd { return run.Cmd{Argv: argv} }

// CompressedCopy copies src to dst with `ditto --hfsCompression`, so files
// sit compressed (decmpfs) on an APFS or HFS+ RAM disk and take less of its
// memory; see README.md for what is known of the effect. Both paths must be
// absolute (a path starting with '-' could never be read as an option).
func CompressedCopy(ctx context.Context, r run.Runner, src, dst string) error {
	if !filepath.IsAbs(src) || !filepath.IsAbs(dst) {
		return fmt.Errorf("ditto --hfsCompression %s %s: both paths must be absolute", src, dst)
	}
	if _, err := r.Run(ctx, run.Cmd{Argv: []string{"ditto", "--hfsCompression", filepath.Clean(src), filepath.Clean(dst)}}); err != nil {
		return fmt.Errorf("ditto --hfsCompression %s %s: %w", src, dst, toolErr(err))
	}
	return nil
}

// captureCommands are the read-only tools `rambar doctor --capture` saves,
// by file name.
var captureCommands = []struct {
	File string
	Argv []string
}{
	{"sw_vers.txt", []string{"sw_vers"}},
	{"hdiutil-info.plist", []string{"hdiutil", "info", "-plist"}},
	{"hdiutil-info.txt", []string{"hdiutil", "info"}},
	{"diskutil-list.plist", []string{"diskutil", "list", "-plist"}},
	{"mount.txt", []string{"mount"}},
	{"vm_stat.txt", []string{"vm_stat"}},
	{"sysctl.txt", []string{"sysctl", "hw.memsize", "vm.swapusage", "hw.pagesize"}},
	{"memory_pressure.txt", []string{"memory_pressure"}},
}

// Capture saves the raw output of captureCommands in dir (stderr beside it
// as FILE.stderr when not empty) and returns the files written. A tool that
// fails is recorded, not fatal.
func (e *Engine) Capture(ctx context.Context, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	var files []string
	var errs []error
	for _, c := range captureCommands {
		res, err := e.r.Run(ctx, run.Cmd{Argv: c.Argv})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.Argv[0], toolErr(err)))
		}
		p := filepath.Join(dir, c.File)
		if werr := os.WriteFile(p, res.Stdout, 0o644); werr != nil {
			return files, fmt.Errorf("capture: %w", werr)
		}
		files = append(files, p)
		if len(res.Stderr) > 0 {
			if werr := os.WriteFile(p+".stderr", res.Stderr, 0o644); werr != nil {
				return files, fmt.Errorf("capture: %w", werr)
			}
			files = append(files, p+".stderr")
		}
	}
	return files, errors.Join(errs...)
}
