//go:build linux

package tree

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

func statCtime(st *unix.Stat_t) unix.Timespec { return st.Ctim }

// StatMtime is st's modification time.
func StatMtime(st *unix.Stat_t) unix.Timespec { return st.Mtim }

// XattrIsContent: on Linux user.* attributes and POSIX ACLs belong to the
// files, and as root security.* (SELinux labels, capabilities) and
// trusted.* too: only root can read and set those. Other system.*
// attributes are the kernel's.
func XattrIsContent(name string) bool {
	switch {
	case strings.HasPrefix(name, "user."), name == "system.posix_acl_access", name == "system.posix_acl_default":
		return true
	case strings.HasPrefix(name, "security."), strings.HasPrefix(name, "trusted."):
		return asRoot
	}
	return false
}

// FlushTree makes everything written under dir durable: one syncfs for the
// whole file system, far cheaper than an fsync per file.
func FlushTree(dir string, _ []string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("syncfs %s: %w", dir, err)
	}
	return nil
}

// SyncEachFile is false: flushTree's syncfs covers every file.
const SyncEachFile = false

// errNoAttr is what getxattr returns for a missing attribute.
const errNoAttr = unix.ENODATA

// kernelCopy copies in to out inside the kernel: copy_file_range where the
// file systems allow it (same file system: it may share or offload the
// blocks), sendfile across file systems (tmpfs to ext4 and back), and a
// buffered copy as the last resort. It returns the bytes copied.
// copy_file_range is tried only when sameFS: across file systems the
// kernel refuses it (EXDEV) and the attempt is a wasted call per file.
func kernelCopy(outFd, inFd int, sameFS bool) (int64, error) {
	var done int64
	useCFR := sameFS
	for {
		var n int
		var err error
		if useCFR {
			n, err = unix.CopyFileRange(inFd, nil, outFd, nil, copyChunk, 0)
			if err != nil && done == 0 && (errors.Is(err, unix.EXDEV) || errors.Is(err, unix.EINVAL) ||
				errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP)) {
				useCFR = false
				continue
			}
		} else {
			n, err = unix.Sendfile(outFd, inFd, nil, copyChunk)
			if err != nil && done == 0 && (errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS)) {
				return readWriteCopy(outFd, inFd)
			}
		}
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
			continue
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, nil
		}
		if n == copyChunk {
			// A large file: start writing this part to the disk now, so
			// that the flush at the commit waits for the last part only,
			// not for all of it (the copy and the disk then work at once).
			_ = unix.SyncFileRange(outFd, done, int64(n), unix.SYNC_FILE_RANGE_WRITE)
		}
		done += int64(n)
	}
}

// copyChunk is how much kernelCopy copies a call: a file larger than this
// is pushed to the disk part by part as it is copied.
const copyChunk = 64 << 20

// kernelRangeCopy copies size bytes at off of in to out with sendfile,
// which reads at an offset without moving in's position. EINVAL (a file
// system sendfile cannot read) makes the caller copy through a buffer.
func kernelRangeCopy(out, in int, off, size int64) error {
	for size > 0 {
		n, err := unix.Sendfile(out, in, &off, int(min(size, 1<<30)))
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("pack ends %d bytes early: %w", size, ErrDamaged)
		}
		size -= int64(n)
	}
	return nil
}

// StatAtime is st's access time.
func StatAtime(st *unix.Stat_t) unix.Timespec { return st.Atim }

// reservedName: on Linux only the lost+found that mkfs.ext4 made (inode
// 11 at the root of an ext4 disk, as on a zram disk), and only while it
// is empty and the saved tree has no lost+found (keepLF, when set, says
// so): a user's lost+found restored onto such a disk is merged with the
// file system's, and what it holds is the user's. A lost+found the user
// made on tmpfs is contents.
func reservedName(rootFd int, name string, st *unix.Stat_t, keepLF func() bool) bool {
	if name != "lost+found" || st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Ino != 11 {
		return false
	}
	var fs unix.Statfs_t
	if unix.Fstatfs(rootFd, &fs) != nil || fs.Type != unix.EXT4_SUPER_MAGIC {
		return false
	}
	fd, err := OpenAtRetry(rootFd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	names, err := DirNames(fd)
	for _, n := range names {
		if n != "." && n != ".." {
			return false
		}
	}
	return err == nil && (keepLF == nil || !keepLF())
}

// ONoAtime keeps reads from moving access times: saves read the disk, and
// the index scan after a restore reads the folders it just timed.
const ONoAtime = unix.O_NOATIME
