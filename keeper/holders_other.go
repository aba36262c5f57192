//go:build !linux

package keeper

import "rambar/ramdisk"

// holders is not known without /proc: Reclaim then relies on the engine's
// non-forced eject, which refuses a busy disk and changes nothing.
func holders(string) []ramdisk.Holder { return nil }
