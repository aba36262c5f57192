//go:build linux

package linux

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"rambar/internal/diskid"
	"rambar/internal/holders"
	"rambar/ramdisk"
)

var _ ramdisk.Detacher = (*Engine)(nil)

// DeviceID implements ramdisk.Detacher: the device (major:minor) of the
// file system mounted at v's mount point, from the mount table, which names
// it until the kernel frees it, and its own id (diskid.FSID:
// "major:minor:fsid"), which tells it from a file system given the number
// after it; "" when nothing is mounted there.
func (e *Engine) DeviceID(v ramdisk.Volume) string {
	ms, err := e.mounts()
	if err != nil {
		return ""
	}
	m, ok := mountAt(ms, filepath.Clean(v.MountPoint))
	if !ok {
		return ""
	}
	id := fmt.Sprintf("%d:%d", m.Major, m.Minor)
	if fsid := diskid.FSID(v.MountPoint); fsid != "" {
		id += ":" + fsid
	}
	return id
}

// StillHeld implements ramdisk.Detacher. A disk unmounted lazily (a forced
// eject of a busy disk) lives on, detached, until no process holds a file,
// a folder, a program or a mapping on it; its device number is free again
// only then. So it is gone when no process holds the device, or when a file
// system mounted now has that number (it was freed and given again). A
// holder of the number counts only if what it holds has the disk's own id
// too, where the id says one (an id from before it, "major:minor", does
// not): the number may name another detached file system, or one in another
// mount namespace, by now. held is what its files take (a tmpfs's memory),
// read through a holder's open file or folder.
func (e *Engine) StillHeld(ctx context.Context, id string) ([]ramdisk.Holder, ramdisk.Size, bool) {
	major, minor, fsid, ok := parseDeviceID(id)
	if !ok {
		return nil, 0, true
	}
	if ms, err := e.mounts(); err == nil {
		for _, m := range ms {
			if m.Major == major && m.Minor == minor {
				return nil, 0, true
			}
		}
	}
	hs := holders.Find(e.proc, major, minor, fsid)
	if len(hs) == 0 {
		return nil, 0, true
	}
	return hs, e.heldVia(hs, major, minor, fsid), false
}

// heldVia measures a detached file system through a path into it that a
// holder has open (its working folder, root or a file descriptor).
func (e *Engine) heldVia(hs []ramdisk.Holder, major, minor uint32, fsid string) ramdisk.Size {
	for _, h := range hs {
		dir := filepath.Join(e.proc, strconv.Itoa(h.PID))
		links := []string{filepath.Join(dir, "cwd"), filepath.Join(dir, "root")}
		if fds, err := os.ReadDir(filepath.Join(dir, "fd")); err == nil {
			for _, fd := range fds {
				links = append(links, filepath.Join(dir, "fd", fd.Name()))
			}
		}
		for _, l := range links {
			if !holders.On(l, major, minor, fsid) {
				continue
			}
			var fs unix.Statfs_t
			if unix.Statfs(l, &fs) == nil {
				return ramdisk.Size((fs.Blocks - fs.Bfree) * uint64(fs.Bsize))
			}
		}
	}
	return 0
}

// parseDeviceID reads "major:minor" or "major:minor:fsid" (16 hex digits).
func parseDeviceID(id string) (major, minor uint32, fsid string, ok bool) {
	parts := strings.Split(id, ":")
	if len(parts) == 3 {
		if _, err := strconv.ParseUint(parts[2], 16, 64); err != nil || len(parts[2]) != 16 {
			return 0, 0, "", false
		}
		fsid = parts[2]
	} else if len(parts) != 2 {
		return 0, 0, "", false
	}
	x, err1 := strconv.ParseUint(parts[0], 10, 32)
	y, err2 := strconv.ParseUint(parts[1], 10, 32)
	return uint32(x), uint32(y), fsid, err1 == nil && err2 == nil
}
