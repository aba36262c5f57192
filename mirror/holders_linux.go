//go:build linux

package mirror

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"rambar/ramdisk"
)

// holders lists the processes with a file, folder or mapping open under
// root (from /proc), so Reclaim refuses a busy disk before copying anything.
func holders(root string) []ramdisk.Holder {
	root = filepath.Clean(root)
	under := func(p string) bool { return p == root || strings.HasPrefix(p, root+"/") }
	procs, _ := os.ReadDir("/proc")
	self := os.Getpid()
	var out []ramdisk.Holder
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		dir := filepath.Join("/proc", p.Name())
		held := false
		for _, l := range []string{"cwd", "root", "exe"} {
			if t, err := os.Readlink(filepath.Join(dir, l)); err == nil && under(t) {
				held = true
			}
		}
		if !held {
			fds, _ := os.ReadDir(filepath.Join(dir, "fd"))
			for _, fd := range fds {
				if t, err := os.Readlink(filepath.Join(dir, "fd", fd.Name())); err == nil && under(t) {
					held = true
					break
				}
			}
		}
		if !held {
			if maps, err := os.ReadFile(filepath.Join(dir, "maps")); err == nil && strings.Contains(string(maps), " "+root+"/") {
				held = true
			}
		}
		if held {
			comm, _ := os.ReadFile(filepath.Join(dir, "comm"))
			out = append(out, ramdisk.Holder{PID: pid, Command: strings.TrimSpace(string(comm))})
		}
	}
	return out
}
