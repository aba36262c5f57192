package main

import (
	"os"

	"rambar/keeper"

	"rambar/internal/run"
	"rambar/linux"
	"rambar/ramdisk"
)

// newEngine is the Linux engine. RAMBAR_MOUNT_ROOT, when set, mounts disks
// there instead of /mnt/rambar (end-to-end tests give each test its own).
func newEngine() (ramdisk.Engine, error) {
	return linux.New(run.System(), linux.WithMountRoot(os.Getenv("RAMBAR_MOUNT_ROOT"))), nil
}

// compressedCopy is nil: transparent compression of restored files
// (ditto --hfsCompression) exists only on macOS; on Linux use --fs zram.
func compressedCopy() keeper.CopyFunc { return nil }
