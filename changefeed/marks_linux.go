//go:build linux

package changefeed

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// An inotify feed follows the folders past its watch budget with fanotify
// inode marks where the kernel lets the process set them (a normal user
// may since Linux 5.13, in a group that reports file handles): marks draw
// on fs.fanotify.max_user_marks, which the desktop's programs, that watch
// with inotify, do not share, and a folder marked needs no walk. All
// feeds of the process together set at most half of max_user_marks (few
// programs use fanotify); a folder past that, or where no mark can be
// set, is unwatched (budget_linux.go). Only the native mode sets marks.

// markShare is the share of max_user_marks the marks budget is (1/2).
const markShare = 2

// EnvMarks is the environment variable that, set to "off", makes the
// feeds set no fanotify inode marks: folders past the watch budget are
// then covered by walks, as on a kernel that allows none (tests).
const EnvMarks = "RAMBAR_FEED_MARKS"

// markBudget is the process's budget of fanotify inode marks.
var markBudget struct {
	mu    sync.Mutex
	limit int // 0: not read yet
}

// markGroup is a feed's fanotify group of inode marks, one per folder
// past the watch budget.
type markGroup struct {
	file    *os.File
	rc      syscall.RawConn
	fan     *fanFeed
	reading sync.Mutex
	buf     []byte
}

// markLimit is the marks budget.
func markLimit() int {
	markBudget.mu.Lock()
	defer markBudget.mu.Unlock()
	if markBudget.limit == 0 {
		markBudget.limit = shareOf("/proc/sys/fs/fanotify/max_user_marks", markShare)
	}
	return markBudget.limit
}

// setMarkBudget makes the marks budget n (a test's; -1: none), until the
// returned func puts it back.
func setMarkBudget(n int) (restore func()) {
	markLimit()
	return swapLimit(&markBudget.mu, &markBudget.limit, n)
}

// marksHeld is how many folders the feeds of this process have marked.
func marksHeld() int {
	budget.mu.Lock()
	defer budget.mu.Unlock()
	n := 0
	for g := range budget.feeds {
		select {
		case <-g.closed: // its group closed: its marks are gone
		default:
			n += g.Marks()
		}
	}
	return n
}

// Marks is how many folders f follows by fanotify inode marks (past its
// watch budget).
func (f *Feed) Marks() int {
	f.mu.Lock()
	g := f.ext.marks
	f.mu.Unlock()
	if g == nil {
		return 0
	}
	g.fan.mu.Lock()
	defer g.fan.mu.Unlock()
	return len(g.fan.marked)
}

// markGroupOf is f's group of inode marks, made at its first use; nil
// where none can be (ModeInotify, the kernel refuses: why says).
func (f *Feed) markGroupOf() *markGroup {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ext.marks != nil || f.ext.marksWhy != "" {
		return f.ext.marks
	}
	switch {
	case f.mode != ModeNative:
		f.ext.marksWhy = "mode " + f.mode.String() + " sets no fanotify marks"
		return nil
	case os.Getenv(EnvMarks) == "off":
		f.ext.marksWhy = EnvMarks + "=off"
		return nil
	}
	canon, err := filepathCanon(f.root)
	if err != nil {
		f.ext.marksWhy = err.Error()
		return nil
	}
	var sfs unix.Statfs_t
	if err := unix.Statfs(f.root, &sfs); err != nil {
		f.ext.marksWhy = fmt.Sprintf("statfs %s: %v", f.root, err)
		return nil
	}
	fd, err := unix.FanotifyInit(fanInit, unix.O_RDONLY|unix.O_CLOEXEC)
	if err != nil {
		f.ext.marksWhy = fmt.Sprintf("fanotify_init: %v (a normal user may use fanotify from Linux 5.13)", err)
		return nil
	}
	file := os.NewFile(uintptr(fd), "fanotify marks")
	rc, err := file.SyscallConn()
	if err != nil {
		file.Close()
		f.ext.marksWhy = fmt.Sprintf("fanotify: %v", err)
		return nil
	}
	g := &markGroup{file: file, rc: rc, buf: make([]byte, 64<<10),
		fan: &fanFeed{canon: canon, fsid: fsidOf(&sfs), dirs: map[string]string{}, outside: map[string]bool{}, marked: map[string]bool{}}}
	f.ext.marks = g
	go f.readMarks(g)
	return g
}

// filepathCanon is root as the kernel names it (the path of a descriptor
// of it).
func filepathCanon(root string) (string, error) {
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("open %s: %w", root, err)
	}
	defer unix.Close(fd)
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return "", fmt.Errorf("readlink %s: %w", root, err)
	}
	return p, nil
}

// mark follows folder rel, open as dir, by a fanotify inode mark: false
// when it cannot (no group, the marks budget spent, the kernel refuses).
func (f *Feed) mark(dir int, rel string) bool {
	g := f.markGroupOf()
	if g == nil {
		return false
	}
	h, _, err := unix.NameToHandleAt(dir, "", unix.AT_EMPTY_PATH)
	if err != nil {
		return false
	}
	key := handleKey(h.Type(), h.Bytes())
	g.fan.mu.Lock()
	already := g.fan.marked[key]
	g.fan.mu.Unlock()
	if !already && marksHeld() >= markLimit() {
		return false
	}
	var merr error
	if err := g.rc.Control(func(fd uintptr) {
		merr = unix.FanotifyMark(int(fd), unix.FAN_MARK_ADD|unix.FAN_MARK_ONLYDIR, fanMask|unix.FAN_EVENT_ON_CHILD, dir, "")
	}); err != nil || merr != nil {
		return false // closed, or the kernel's limit (max_user_marks) reached
	}
	g.fan.mu.Lock()
	g.fan.dirs[key], g.fan.marked[key] = rel, true
	g.fan.mu.Unlock()
	f.mu.Lock()
	delete(f.ext.unwatched, rel)
	f.mu.Unlock()
	return true
}

// readMarks takes the events of f's marks as they come until f is
// closed, which closes the group.
func (f *Feed) readMarks(g *markGroup) {
	go func() {
		<-f.closed
		g.file.Close()
	}()
	for {
		waited := false
		err := g.rc.Read(func(uintptr) bool {
			defer func() { waited = true }()
			return waited // first wait until the group has events
		})
		if err != nil {
			select {
			case <-f.closed:
			default:
				f.lose(fmt.Sprintf("read fanotify marks: %v", err))
			}
			return
		}
		f.drainMarks()
	}
}

// drainMarks reads every event of f's marks queued (through the group's
// descriptor held open: never another file's of the same number).
func (f *Feed) drainMarks() {
	f.mu.Lock()
	g := f.ext.marks
	f.mu.Unlock()
	if g == nil {
		return
	}
	g.reading.Lock()
	defer g.reading.Unlock()
	for {
		var n int
		var rerr error
		if err := g.rc.Control(func(fd uintptr) { // not Read: readMarks waits in it
			n, rerr = unix.Read(int(fd), g.buf)
		}); err != nil {
			return // closed
		}
		switch {
		case errors.Is(rerr, unix.EINTR):
			continue
		case rerr != nil || n <= 0:
			if rerr != nil && !errors.Is(rerr, unix.EAGAIN) {
				f.lose(fmt.Sprintf("read fanotify marks: %v", rerr))
			}
			return
		}
		f.fanEventsOf(g.fan, g.buf[:n], time.Now())
	}
}
