//go:build darwin

package boottime

import "golang.org/x/sys/unix"

// clock is CLOCK_MONOTONIC, which on macOS counts the time asleep too
// (mach_continuous_time).
func clock() (int64, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0, false
	}
	return ts.Nano(), true
}

// bootID is the kernel's id of this boot session (kern.bootsessionuuid).
func bootID() string {
	id, err := unix.Sysctl("kern.bootsessionuuid")
	if err != nil {
		return ""
	}
	return id
}
