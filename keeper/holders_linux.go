//go:build linux

package keeper

import (
	"os"
	"slices"

	procholders "rambar/internal/holders"
	"rambar/ramdisk"
)

// holders lists the other processes keeping the file system mounted at root
// busy (internal/holders: by device, from /proc), so Reclaim refuses a busy
// disk before copying anything. This process is left out: reclaim itself is
// what is about to empty the disk.
func holders(root string) []ramdisk.Holder {
	self := os.Getpid()
	return slices.DeleteFunc(procholders.OnMount("/proc", root), func(h ramdisk.Holder) bool { return h.PID == self })
}
