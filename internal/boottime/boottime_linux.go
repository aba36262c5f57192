//go:build linux

package boottime

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// clock is CLOCK_BOOTTIME: CLOCK_MONOTONIC plus the time asleep.
func clock() (int64, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0, false
	}
	return ts.Nano(), true
}

// bootID is the kernel's random id of this boot.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
