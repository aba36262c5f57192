//go:build linux

package keeper

import (
	"os"

	procholders "rambar/internal/holders"
	"rambar/ramdisk"
)

// holders lists the other processes keeping the file system mounted at root
// busy (internal/holders: by device, from /proc), so Reclaim refuses a busy
// disk before copying anything. This process is left out: reclaim itself is
// what is about to empty the disk.
func holders(root string) []ramdisk.Holder {
	self := os.Getpid()
	var out []ramdisk.Holder
	for _, h := range procholders.OnMount("/proc", root) {
		if h.PID != self {
			out = append(out, h)
		}
	}
	return out
}
