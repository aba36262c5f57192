//go:build linux

package changefeed

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Mask is every change a save would store: contents written or
// truncated, metadata changed (mode, owner, times, xattrs, links), names
// made, removed or renamed, and a folder itself removed or moved. Reads,
// opens and closes are not changes, so a save's own copying is none.
// Writes through a name since unlinked are reported too (no
// IN_EXCL_UNLINK): a file may still be on the disk by another name. The
// feed and a save's still watch (package tree) watch for it.
const Mask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM |
	unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// closedMask is Mask in ModeFSEvents: a written file is heard when it is
// closed (IN_CLOSE_WRITE), not at each write, as FSEvents hears it. Its
// IN_MODIFY events, which a write and a truncate alike raise, are held
// until the next look at the open files: one of a file no longer open
// for writing was a truncate by path (which FSEvents reports: vnode_setattr
// posts FSE_STAT_CHANGED) or a write already closed, and is a change.
const closedMask = Mask | unix.IN_CLOSE_WRITE

// Feed follows one disk's changes (inotify: a watch per folder, which the
// save's walk adds through Watch).
type Feed struct {
	*pending
	root string
	file *os.File
	fd   int
	mu   sync.Mutex
	wds  map[int32]string // each watch's folder
	// reading is held while the queue is read: by the reader when the
	// queue has events, by Take and Peek (so that every change made before
	// they are called is in what they return: the kernel queues an event
	// in the writer's own system call).
	reading sync.Mutex
	buf     []byte
	closed  chan struct{}
	// mode is the feed's kind; mask the events each watch asks for;
	// writers, in ModeFSEvents, looks at the files open for writing.
	mode    Mode
	mask    uint32
	writers *writers
	// ext: the fanotify feed following the disk instead, or why not, and
	// the folders past the watch budget (fanotify_linux.go, budget_linux.go).
	ext feedExt
}

// Open starts following the disk at root. ignored, when not nil, leaves
// out changes it names (RAMBar's own files on the disk); a folder is only
// followed once Watch is given it, so the first Changes are Lost.
func Open(root string, ignored func(folder, name string) bool) (*Feed, error) {
	return OpenWith(root, Options{Ignored: ignored})
}

// OpenWith starts following the disk at root as o says: Open, or in
// ModeFSEvents a feed with the Mac's semantics (Mode).
func OpenWith(root string, o Options) (*Feed, error) {
	why := "the FSEvents test mode follows a disk with inotify"
	if o.Mode == ModeNative {
		var fan *Feed
		if fan, why = openFanotify(root, o.Ignored); fan != nil {
			return fan, nil
		}
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify_init1: %w", err)
	}
	f := &Feed{pending: newPending(o.Ignored, o.Mode != ModeFSEvents), root: root, fd: fd, file: os.NewFile(uintptr(fd), "inotify"),
		wds: map[int32]string{}, buf: make([]byte, 64<<10), closed: make(chan struct{}), mode: o.Mode, mask: Mask}
	f.ext.why = why
	if o.Mode == ModeFSEvents {
		f.mask, f.pending.dropEvery = closedMask, o.drops()
		f.writers = newWriters(f.pending, root)
	}
	go f.read()
	return f, nil
}

// Watch follows folder rel of the disk, open as dir, from now on: called
// before its names are read, so any change after that read is an event.
// The root is watched through its descriptor, the others by their path
// under root with no symlink followed: a folder replaced since the walk
// opened it is a change of its parent, watched before. A folder past the
// process's watch budget (WatchBudget), or that the system has no watch
// left for (max_user_watches), is not watched: every Changes gives it to
// read whole (budget_linux.go). A feed that follows its disk by fanotify
// only learns the folder's file handle (fanotify_linux.go).
func (f *Feed) Watch(dir int, rel string) {
	if f.ext.fan != nil {
		f.fanWatch(dir, rel)
		return
	}
	p, flags := f.root+"/"+rel, uint32(unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW)
	if rel == "." {
		p, flags = "/proc/self/fd/"+strconv.Itoa(dir), unix.IN_ONLYDIR
	}
	err := f.watchBudgeted(dir, rel, p, flags)
	switch {
	case err == nil:
	case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP):
		// Removed or replaced since it was opened: its parent's event.
	case errors.Is(err, unix.ENOSPC):
		f.pastBudget(dir, rel) // the user's watches are all taken (max_user_watches): as past the budget
	default:
		f.lose(fmt.Sprintf("inotify_add_watch %s: %v", p, err))
	}
}

// Watched is how many folders the feed follows.
func (f *Feed) Watched() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.wds)
}

// Close stops the feed (and every watch with it).
func (f *Feed) Close() error {
	select {
	case <-f.closed:
		return nil
	default:
	}
	if f.writers != nil {
		f.writers.close()
	}
	// Closed while no drain reads (one that comes after reads nothing),
	// but not held while the file closes: that waits for the reader's
	// callback, which may be waiting for the lock.
	f.reading.Lock()
	close(f.closed)
	f.reading.Unlock()
	return f.file.Close()
}

// Take returns the changes since the last take, and starts afresh (in
// ModeFSEvents, with the folders of the files open for writing).
func (f *Feed) Take() Changes {
	f.drain()
	if f.writers != nil {
		f.writers.look(byTake)
	}
	f.drainMarks() // the folders past the watch budget: their marks, else walks
	c := f.pending.Take()
	f.cover(&c, true)
	return c
}

// Peek returns the changes since the last take, leaving them.
func (f *Feed) Peek() Changes {
	f.drain()
	if f.writers != nil {
		f.writers.look(byPeek)
	}
	f.drainMarks()
	c := f.pending.Peek()
	f.cover(&c, false)
	return c
}

// read takes the events as they come until the feed is closed.
func (f *Feed) read() {
	rc, err := f.file.SyscallConn()
	if err != nil {
		f.lose(fmt.Sprintf("read inotify: %v", err))
		return
	}
	err = rc.Read(func(uintptr) bool {
		f.drain()
		return false // wait for the next events
	})
	select {
	case <-f.closed:
	default:
		f.lose(fmt.Sprintf("read inotify: %v", err))
	}
}

// drain reads every event queued.
func (f *Feed) drain() {
	f.reading.Lock()
	defer f.reading.Unlock()
	select {
	case <-f.closed:
		return // its descriptor's number may be another file's now
	default:
	}
	for {
		n, err := unix.Read(f.fd, f.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			if err != nil && err != unix.EAGAIN && err != unix.EBADF {
				f.lose(fmt.Sprintf("read inotify: %v", err))
			}
			return
		}
		if f.ext.fan != nil {
			f.fanEvents(f.buf[:n], time.Now())
		} else {
			f.events(f.buf[:n], time.Now())
		}
	}
}

// events records a read's events.
func (f *Feed) events(b []byte, at time.Time) {
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		end := unix.SizeofInotifyEvent + int(ev.Len)
		if end > len(b) {
			f.lose("a torn inotify event")
			return
		}
		name := b[unix.SizeofInotifyEvent:end]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		f.event(ev.Wd, ev.Mask, string(name), at)
		b = b[end:]
	}
}

// event records one event of watch wd.
func (f *Feed) event(wd int32, m uint32, name string, at time.Time) {
	if m&unix.IN_Q_OVERFLOW != 0 {
		f.lose("more changes at once than the system queues (fs.inotify.max_queued_events)")
		return
	}
	f.mu.Lock()
	rel, ok := f.wds[wd]
	if m&unix.IN_IGNORED != 0 {
		delete(f.wds, wd) // the folder is gone (its parent's event) or unmounted
	}
	f.mu.Unlock()
	switch {
	case m&unix.IN_UNMOUNT != 0:
		f.lose("the disk was unmounted")
	case !ok || m&unix.IN_IGNORED != 0:
	case m&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0:
		if rel == "." {
			f.lose("the disk's top folder was removed or moved")
		}
		// Any other folder's removal or move is an event of its parent.
	case f.mode == ModeFSEvents && m&unix.IN_MODIFY != 0:
		f.writers.modified(rel, name, at) // a write heard at close, a truncate at the next look
	default:
		if f.mode != ModeFSEvents { // FSEvents tells no links
			f.made(rel, name, m)
		}
		f.add(rel, name, at)
	}
}

// made learns which file a name just made in folder rel names, when it
// is a file of several names (a hard link made: every other name of it
// may change, through this one, with no event of their folders). The
// reader takes events as they come, so a link is looked at moments after
// it is made; one removed before that (made, written through and removed
// within microseconds) is not known, and a write through it is saved by
// the next full scan (hourly, and at every eject).
func (f *Feed) made(rel, name string, m uint32) {
	if m&(unix.IN_CREATE|unix.IN_MOVED_TO) == 0 || m&unix.IN_ISDIR != 0 {
		return
	}
	var st unix.Stat_t
	if unix.Lstat(f.root+"/"+rel+"/"+name, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1 {
		f.link(st.Ino)
	}
}
