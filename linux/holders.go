//go:build linux

package linux

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"rambar/ramdisk"
)

// devMajor and devMinor split a Linux st_dev (the glibc encoding the kernel
// hands to stat(2) on 64-bit dev_t).
func devMajor(dev uint64) uint32 { return uint32((dev>>8)&0xfff | (dev>>32)&^0xfff) }
func devMinor(dev uint64) uint32 { return uint32(dev&0xff | (dev>>12)&^0xff) }

// FindHolders lists the processes that keep the file system with device
// major:minor busy: an open file (/proc/PID/fd), a working directory (cwd),
// a root (chroot) or a mapped file (maps) on it. procDir is /proc. Processes
// that vanish or cannot be read (another user's, without root) are skipped,
// so the list may be short but never wrong. Sorted by PID.
func FindHolders(procDir string, major, minor uint32) []ramdisk.Holder {
	ents, err := os.ReadDir(procDir)
	if err != nil {
		return nil
	}
	on := func(path string) bool {
		var st syscall.Stat_t
		if err := syscall.Stat(path, &st); err != nil {
			return false
		}
		d := uint64(st.Dev)
		return devMajor(d) == major && devMinor(d) == minor
	}
	var out []ramdisk.Holder
	for _, de := range ents {
		pid, err := strconv.Atoi(de.Name())
		if err != nil || pid <= 0 {
			continue
		}
		dir := filepath.Join(procDir, de.Name())
		if holds(dir, on, major, minor) {
			out = append(out, ramdisk.Holder{PID: pid, Command: command(dir)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

func holds(dir string, on func(string) bool, major, minor uint32) bool {
	if on(filepath.Join(dir, "cwd")) || on(filepath.Join(dir, "root")) {
		return true
	}
	if fds, err := os.ReadDir(filepath.Join(dir, "fd")); err == nil {
		for _, fd := range fds {
			if on(filepath.Join(dir, "fd", fd.Name())) {
				return true
			}
		}
	}
	return mapsOn(filepath.Join(dir, "maps"), major, minor)
}

// mapsOn reports whether a /proc/PID/maps file maps a file from major:minor
// (the fourth column, in hex: "00:2a").
func mapsOn(path string, major, minor uint32) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) < 6 {
			continue // anonymous mapping
		}
		ma, mi, ok := strings.Cut(fl[3], ":")
		if !ok {
			continue
		}
		a, err1 := strconv.ParseUint(ma, 16, 32)
		b, err2 := strconv.ParseUint(mi, 16, 32)
		if err1 == nil && err2 == nil && uint32(a) == major && uint32(b) == minor {
			return true
		}
	}
	return false
}

// command is a process's name: its comm, or argv[0] when comm is unreadable.
func command(dir string) string {
	if b, err := os.ReadFile(filepath.Join(dir, "comm")); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
		if a, _, _ := strings.Cut(string(b), "\x00"); a != "" {
			return filepath.Base(a)
		}
	}
	return "?"
}
