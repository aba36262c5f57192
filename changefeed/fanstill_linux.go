package changefeed

import "golang.org/x/sys/unix"

// FileSystemWatch starts a fanotify watch of the whole file system
// mounted at the folder open as top (one filesystem mark, with every
// change the feed hears in its mask), whose events are only counted, never
// read: a save's still watch (tree.StillWatch) asks whether any is queued.
// It returns -1 when the process may not (a filesystem mark needs root or
// CAP_SYS_ADMIN), the kernel cannot, or top is not a file system of its
// own (a mark would hear the larger file system it is a folder of).
func FileSystemWatch(top int) int {
	if ownFileSystem(top) != "" {
		return -1
	}
	fd, err := unix.FanotifyInit(unix.FAN_CLASS_NOTIF|unix.FAN_CLOEXEC|unix.FAN_NONBLOCK|unix.FAN_REPORT_FID, unix.O_RDONLY|unix.O_CLOEXEC)
	if err != nil {
		return -1
	}
	if unix.FanotifyMark(fd, unix.FAN_MARK_ADD|unix.FAN_MARK_FILESYSTEM, fanMask, top, "") != nil {
		unix.Close(fd)
		return -1
	}
	return fd
}
