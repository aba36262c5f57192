package main

import (
	"context"

	"rambar/darwin"
	"rambar/internal/run"
	"rambar/keeper"
	"rambar/ramdisk"
)

func newEngine() (ramdisk.Engine, error) { return darwin.New(run.System()), nil }

// compressedCopy writes restored files with `ditto --hfsCompression`, so
// they sit compressed (decmpfs) on the RAM disk.
func compressedCopy() keeper.CopyFunc {
	return func(ctx context.Context, src, dst string) error {
		return darwin.CompressedCopy(ctx, run.System(), src, dst)
	}
}
