//go:build linux

package snapshot

import (
	"errors"
	"unsafe"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// mappedFiles returns the inodes of the files on root's file system that a
// running process maps shared and writable. Each process's mappings are
// asked for with PROCMAP_QUERY (Linux 6.11: only the matching ones come
// back, no text is made), else read from its maps file. A process that
// ends meanwhile, or cannot be read (another user's, without root), is
// skipped: its mappings cannot be written by it either once it is gone,
// and a process RAMBar cannot read is not the user's.
func mappedFiles(root string) map[uint64]bool {
	found := map[uint64]bool{}
	var st unix.Stat_t
	if unix.Stat(root, &st) != nil {
		return found
	}
	major, minor := unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev))
	proc, err := tree.OpenRetry("/proc", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return found
	}
	defer unix.Close(proc)
	names, err := tree.DirNames(proc)
	if err != nil {
		return found
	}
	query := true
	for _, n := range names {
		if n == "" || n[0] < '1' || n[0] > '9' {
			continue
		}
		fd, err := tree.OpenAtRetry(proc, n+"/maps", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if query {
			query = queryMaps(fd, major, minor, found)
		}
		if !query {
			readMaps(fd, major, minor, found)
		}
		unix.Close(fd)
	}
	return found
}

// procmapQuery is struct procmap_query (linux/fs.h).
type procmapQuery struct {
	size, flags, addr, start, end, vmaFlags, pageSize, offset, inode uint64
	devMajor, devMinor, nameSize, buildIDSize                        uint32
	nameAddr, buildIDAddr                                            uint64
}

// PROCMAP_QUERY, _IOWR('f', 17, struct procmap_query), and its flags.
const (
	procmapQueryIoctl = 0xc0000000 | uint64(unsafe.Sizeof(procmapQuery{}))<<16 | 'f'<<8 | 17
	procmapWritable   = 0x02
	procmapShared     = 0x08
	procmapNext       = 0x10 // the mapping at the address, or the next one
	procmapFileBacked = 0x20
)

// queryMaps adds to found the inodes on major:minor that the maps file fd
// maps shared and writable, asking PROCMAP_QUERY; false when the kernel
// does not know the call (the text is read then).
func queryMaps(fd int, major, minor uint32, found map[uint64]bool) bool {
	for addr := uint64(0); ; {
		q := procmapQuery{size: uint64(unsafe.Sizeof(procmapQuery{})), addr: addr,
			flags: procmapWritable | procmapShared | procmapNext | procmapFileBacked}
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(procmapQueryIoctl), uintptr(unsafe.Pointer(&q)))
		switch {
		case e == unix.ENOTTY || e == unix.EINVAL && addr == 0:
			return false // no such call, or not with this layout
		case e != 0:
			return true // ENOENT: no more; ESRCH: a kernel thread, or a process gone
		}
		if q.devMajor == major && q.devMinor == minor && q.inode != 0 {
			found[q.inode] = true
		}
		if q.end <= addr {
			return true
		}
		addr = q.end
	}
}

// readMaps adds to found what the maps text of fd names (mapsShared),
// reading at most 64 MiB of it.
func readMaps(fd int, major, minor uint32, found map[uint64]bool) {
	var b []byte
	buf := make([]byte, 64<<10)
	for len(b) < 64<<20 {
		n, err := unix.Read(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		b = append(b, buf[:n]...)
	}
	mapsShared(b, major, minor, found)
}
