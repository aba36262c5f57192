package darwin

import (
	"context"
	"fmt"
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
