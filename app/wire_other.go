//go:build !darwin && !linux

package main

import (
	"fmt"
	"runtime"

	"rambar/ramdisk"
)

func newEngine() (ramdisk.Engine, error) {
	return nil, fmt.Errorf("RAM disks on %s: %w (RAMBar runs on macOS and Linux)", runtime.GOOS, ramdisk.ErrUnsupported)
}
