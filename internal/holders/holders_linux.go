//go:build linux

package holders

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"rambar/internal/diskid"
	"rambar/ramdisk"
)

// devMajor and devMinor split a Linux st_dev (the glibc encoding the kernel
// hands to stat(2) on 64-bit dev_t).
func devMajor(dev uint64) uint32 { return uint32((dev>>8)&0xfff | (dev>>32)&^0xfff) }
func devMinor(dev uint64) uint32 { return uint32(dev&0xff | (dev>>12)&^0xff) }

// OnMount lists the processes that keep the disk at dir busy (see Find). dir
// is normally a mount point and is matched by its device; a folder that is
// only part of a larger file system (a disk stood in for by a folder) is
// matched by path instead: what is open, run or mapped under it. nil when dir
// cannot be read.
func OnMount(procDir, dir string) []ramdisk.Holder {
	var st, up syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return nil
	}
	dir = filepath.Clean(dir)
	if err := syscall.Stat(filepath.Join(dir, ".."), &up); err != nil || up.Dev != st.Dev || dir == "/" {
		d := uint64(st.Dev)
		return Find(procDir, devMajor(d), devMinor(d), "")
	}
	under := func(p string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }
	onPath := func(link string) bool {
		t, err := os.Readlink(link)
		return err == nil && under(t)
	}
	mapped := func(_ string, fields []string) bool { return len(fields) >= 6 && under(fields[5]) }
	return scan(procDir, onPath, mapped)
}

// Find lists the processes that keep the file system with device
// major:minor busy: an open file (/proc/PID/fd), a working directory (cwd),
// a root (chroot), a program (exe) or a mapped file (maps) on it. procDir is
// /proc. Processes that vanish or cannot be read (another user's, without
// root) are skipped, so the list may be short but never wrong. Sorted by PID.
//
// fsid, when not "", is the file system's own id (diskid.FSID) as well:
// a device number is given again once its file system is freed, maybe to
// one in another mount namespace or to another detached one, so a path
// whose number matches but whose id is known and differs is another file
// system's. Where the id cannot be read (a mapping, without root), the
// number decides, as it does when fsid is "".
func Find(procDir string, major, minor uint32, fsid string) []ramdisk.Holder {
	onDev := func(link string) bool { return On(link, major, minor, fsid) }
	mapped := func(dir string, fields []string) bool {
		return mapsDev(fields, major, minor) && sameFS(filepath.Join(dir, "map_files", mapFile(fields[0])), fsid)
	}
	return scan(procDir, onDev, mapped)
}

// On reports whether path (a process's link in /proc: a working folder,
// an open file) is on the file system Find looks for: device major:minor,
// and, where fsid is not "", that id (sameFS).
func On(path string, major, minor uint32, fsid string) bool {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return false
	}
	d := uint64(st.Dev)
	return devMajor(d) == major && devMinor(d) == minor && sameFS(path, fsid)
}

// scan walks /proc: a process holds the disk when on is true for one of its
// cwd, root, exe or fd links, or mapped for one of its maps lines (split
// into fields; dir is the process's folder in procDir).
func scan(procDir string, on func(link string) bool, mapped func(dir string, fields []string) bool) []ramdisk.Holder {
	ents, err := os.ReadDir(procDir)
	if err != nil {
		return nil
	}
	var out []ramdisk.Holder
	for _, de := range ents {
		pid, err := strconv.Atoi(de.Name())
		if err != nil || pid <= 0 {
			continue
		}
		dir := filepath.Join(procDir, de.Name())
		if holds(dir, on, mapped) {
			out = append(out, ramdisk.Holder{PID: pid, Command: command(dir)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

func holds(dir string, on func(string) bool, mapped func(string, []string) bool) bool {
	for _, l := range []string{"cwd", "root", "exe"} {
		if on(filepath.Join(dir, l)) {
			return true
		}
	}
	if fds, err := os.ReadDir(filepath.Join(dir, "fd")); err == nil {
		for _, fd := range fds {
			if on(filepath.Join(dir, "fd", fd.Name())) {
				return true
			}
		}
	}
	return mapsAny(filepath.Join(dir, "maps"), func(fields []string) bool { return mapped(dir, fields) })
}

// mapsAny reports whether a line of a /proc/PID/maps file is mapped.
func mapsAny(path string, mapped func([]string) bool) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if mapped(strings.Fields(sc.Text())) {
			return true
		}
	}
	return false
}

// mapsDev reports whether a maps line maps a file from major:minor (the
// fourth column, in hex: "00:2a"; anonymous mappings have no sixth).
func mapsDev(fl []string, major, minor uint32) bool {
	if len(fl) < 6 {
		return false
	}
	ma, mi, ok := strings.Cut(fl[3], ":")
	if !ok {
		return false
	}
	a, err1 := strconv.ParseUint(ma, 16, 32)
	b, err2 := strconv.ParseUint(mi, 16, 32)
	return err1 == nil && err2 == nil && uint32(a) == major && uint32(b) == minor
}

// mapFile is the name in /proc/PID/map_files of a maps line's range: maps
// pads its addresses to 8 digits, map_files does not.
func mapFile(span string) string {
	a, b, _ := strings.Cut(span, "-")
	x, err1 := strconv.ParseUint(a, 16, 64)
	y, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return span
	}
	return fmt.Sprintf("%x-%x", x, y)
}

// sameFS reports whether path may be on the file system whose id is fsid
// (diskid.FSID): false only when fsid is not "" and path's id is known and
// differs.
func sameFS(path, fsid string) bool {
	if fsid == "" {
		return true
	}
	id := diskid.FSID(path)
	return id == "" || id == fsid
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
