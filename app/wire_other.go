//go:build !darwin && !linux

package main

import (
	"fmt"
	"runtime"

	"rambar/keeper"

	"rambar/ramdisk"
)

func newEngine() (ramdisk.Engine, error) {
	return nil, fmt.Errorf("RAM disks on %s: %w (RAMBar runs on macOS and Linux)", runtime.GOOS, ramdisk.ErrUnsupported)
}

// compressedCopy is nil: transparent compression of restored files
// (ditto --hfsCompression) exists only on macOS; on Linux use --fs zram.
func compressedCopy() keeper.CopyFunc { return nil }
