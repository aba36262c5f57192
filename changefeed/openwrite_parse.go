package changefeed

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// The readers of what the systems say of open files, with no build tag
// so that every system's tests run them: Linux's /proc/PID/fdinfo, lsof
// -F (the Mac's fallback) and libproc's vnode_fdinfowithpath.

// fdinfoFlags returns the open flags of a /proc/PID/fdinfo/FD file (its
// "flags:" line, in octal).
func fdinfoFlags(b []byte) (uint64, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != "flags" {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
		if err != nil {
			return 0, fmt.Errorf("read fdinfo: flags %q: %w", strings.TrimSpace(v), err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("read fdinfo: no flags line")
}

// Linux's access modes (fcntl.h): the low two bits of the open flags.
const (
	linuxAccMode = 0o3
	linuxWrOnly  = 0o1
	linuxRdWr    = 0o2
)

// writableFlags reports whether Linux open flags allow writes.
func writableFlags(flags uint64) bool {
	m := flags & linuxAccMode
	return m == linuxWrOnly || m == linuxRdWr
}

// lsofWriters returns the names lsof -F (fields p, f, a, n) lists as open
// for writing ("w") or reading and writing ("u").
func lsofWriters(out []byte) []string {
	var found []string
	access := byte(0)
	for _, line := range bytes.Split(out, []byte{'\n'}) {
		if len(line) < 1 {
			continue
		}
		switch line[0] {
		case 'p', 'f':
			access = 0 // a new process or file: no mode known yet
		case 'a':
			if len(line) > 1 {
				access = line[1]
			}
		case 'n':
			if access == 'w' || access == 'u' {
				found = append(found, string(line[1:]))
			}
		}
	}
	return found
}

// The libproc structures proc_pidfdinfo(PROC_PIDFDVNODEPATHINFO) fills
// (sys/proc_info.h), laid out as the C compiler lays them out on both of
// the Mac's architectures: the tests check their size against the
// header's PROC_PIDFDVNODEPATHINFO_SIZE.
type (
	procFileInfo struct {
		OpenFlags  uint32 // fi_openflags: FREAD, FWRITE...
		Status     uint32
		Offset     int64
		Type       int32
		GuardFlags uint32
	}
	vinfoStat struct {
		Dev                      uint32
		Mode                     uint16
		Nlink                    uint16
		Ino                      uint64
		UID, GID                 uint32
		Atime, AtimeNsec         int64
		Mtime, MtimeNsec         int64
		Ctime, CtimeNsec         int64
		Birthtime, BirthtimeNsec int64
		Size, Blocks             int64
		Blksize                  int32
		Flags, Gen, Rdev         uint32
		Qspare                   [2]int64
	}
	vnodeInfo struct {
		Stat      vinfoStat
		Type, Pad int32
		Fsid      [2]int32
	}
	vnodeFdInfoWithPath struct {
		File procFileInfo
		VI   vnodeInfo
		Path [1024]byte // MAXPATHLEN, NUL-terminated
	}
)

// fwrite is the Mac's FWRITE open flag (sys/fcntl.h).
const fwrite = 0x2

// writablePath returns the path of a file libproc describes and whether
// its descriptor was opened for writing.
func (v *vnodeFdInfoWithPath) writablePath() (string, bool) {
	n := bytes.IndexByte(v.Path[:], 0)
	if n < 0 {
		n = len(v.Path)
	}
	return string(v.Path[:n]), v.File.OpenFlags&fwrite != 0
}

// relUnder returns where p lies on the disk whose root is any of roots
// (the root as given, and with its symlinks resolved): its folder
// relative to the root ("." for the top) and its name; false when it is
// not under any, or is the root itself.
func relUnder(roots []string, p string) (folder, name string, ok bool) {
	for _, r := range roots {
		if rel, found := strings.CutPrefix(p, r+"/"); found && rel != "" {
			folder, name = splitRelPath(rel)
			return folder, name, true
		}
	}
	return "", "", false
}

// splitRelPath splits a path relative to the disk's root into its folder ("."
// for the top) and its name.
func splitRelPath(rel string) (folder, name string) {
	dir, name := path.Split(rel)
	if dir = strings.TrimSuffix(dir, "/"); dir == "" {
		dir = "."
	}
	return dir, name
}
