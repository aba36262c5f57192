//go:build linux

package tree

import (
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"rambar/changefeed"
)

// StillWatch tells a save whether the disk held still since its scan
// without looking at every path again (look.go): each folder the scan
// reads is watched through inotify from the moment it is opened, before
// its names are read and its paths stat'ed, so a change to any path after
// the scan saw it queues an event (the kernel queues it in the writer's
// own system call, before that call returns). No event at the end of the
// copy is the look's answer "nothing moved", at the cost of a watch per
// folder rather than a statx per path. Anything the watch cannot vouch
// for (a folder it could not watch, a full queue, no inotify, no /proc)
// makes it broken: the save then looks, as without it.
//
// Where the process may (root) and the disk is a file system of its own,
// one fanotify filesystem mark replaces every inotify watch
// (changefeed.FileSystemWatch): set as the scan opens the top folder,
// before any name is read, it hears every change anywhere on the disk
// from then on, in the writer's own system call as inotify does, for no
// watch at all; the folders and files of several names are then not
// watched one by one.
//
// An event reaches the watch of the folder the writer opened the file
// through, even after that name was unlinked. A file of several names is
// watched itself too (addFile), so any name's writer is seen. Two writers
// no watch sees: one writing through a descriptor opened by a name it
// since unlinked, in a folder since removed, to a file that had one other
// name then; and the kernel's NFS server (or open_by_handle_at) writing a
// file through a handle. Such a save keeps that file as the scan saw it (a
// version that existed; a file it copies is checked by its own copy, as
// always) and calls the snapshot consistent; the next save stores the
// change, which moved the file's times. Writes through shared mappings
// raise no event, as they move no time either: those files are compared
// by contents (watch.go) either way.
type StillWatch struct {
	fd     int
	broken atomic.Bool
	// root is the top folder's path and top its identity as opened, so
	// that still can tell the path still names it (the other folders are
	// watched by paths under it).
	root string
	top  atomic.Pointer[unix.Stat_t]
	// also, when set, must say still too: the folders a rescan took from
	// the scan before are followed by the disk's change feed, not by this
	// watch.
	also func() bool
	// taken counts the watches added, each taken from the budget.
	taken atomic.Int64
	// fan: fd is a fanotify filesystem mark's, which hears the whole disk;
	// pin then holds the top folder open, so that its file system, even
	// unmounted, is not freed and its device number given to another
	// mounted at root (an unmount removes a filesystem mark silently).
	fan atomic.Bool
	pin int
	// files are the inodes of several names addFile watched.
	mu    sync.Mutex
	files map[fileID]struct{}
}

// Also makes Still ask f too (set before the watch is asked).
func (w *StillWatch) Also(f func() bool) {
	if w != nil {
		w.also = f
	}
}

// NewStillWatch starts a watch with no folders yet; nil when the system
// cannot give one (the save then always looks).
func NewStillWatch() *StillWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &StillWatch{fd: fd}
}

// add watches folder rel under root, which the scan just opened as dir.
// The top folder is watched through its descriptor's /proc name; the
// others by path, which costs half as much (no /proc lookup): the parent
// was watched before its names were read, so a folder replaced since the
// scan opened it (by another, or by a symlink: the last name is never
// followed) is an event there.
func (w *StillWatch) add(dir int, root, rel string) {
	if w == nil || w.broken.Load() {
		return
	}
	p, flags := root+"/"+rel, uint32(unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW)
	if rel == "." {
		p, flags = "/proc/self/fd/"+strconv.Itoa(dir), unix.IN_ONLYDIR
		var st unix.Stat_t
		if unix.Fstat(dir, &st) != nil {
			w.broken.Store(true)
			return
		}
		w.root = root
		w.top.Store(&st)
		if fd := changefeed.FileSystemWatch(dir); fd >= 0 {
			pin, err := unix.FcntlInt(uintptr(dir), unix.F_DUPFD_CLOEXEC, 0)
			if err != nil {
				unix.Close(fd)
				w.broken.Store(true)
				return
			}
			if w.fan.Load() { // the top opened again (a rescan): its earlier mark and hold go
				unix.Close(w.pin)
			}
			unix.Close(w.fd)
			w.fd, w.pin = fd, pin
			w.fan.Store(true)
			return
		}
	} else if w.fan.Load() {
		return // the filesystem mark hears it
	}
	w.watch(p, flags)
}

// watch adds a watch on path p within the process's watch budget
// (changefeed.TakeWatch, shared with the change feeds): past it, or when
// the kernel refuses, the watch is broken and adds no more, so a tree of
// more folders and files of several names than the budget costs the
// budget's inotify_add_watch calls, not one for each, and never takes the
// watches the user's other programs need. The save then looks.
func (w *StillWatch) watch(p string, flags uint32) bool {
	if !changefeed.TakeWatch() {
		w.broken.Store(true)
		return false
	}
	if _, err := unix.InotifyAddWatch(w.fd, p, changefeed.Mask|flags); err != nil {
		changefeed.GiveWatches(1)
		w.broken.Store(true)
		return false
	}
	w.taken.Add(1)
	return true
}

// addFile watches the file name in the open folder dir itself (not a
// symlink: never followed), st its lstat. A name replaced since the scan
// saw it is an event of dir's watch, added before. A watch is the inode's,
// not the name's: a file whose inode is watched already (through another
// of its names, before this one was stat'ed) is not looked up again, so a
// tree of 400,000 hard-linked names into 50,000 files costs 50,000 /proc
// lookups, not 400,000. An inode freed and its number reused since is no
// gap: its watch queued IN_IGNORED when it was freed.
func (w *StillWatch) addFile(dir int, name []byte, st *unix.Stat_t) {
	if w == nil || w.broken.Load() || w.fan.Load() {
		return
	}
	id := fileID{st.Dev, st.Ino}
	w.mu.Lock()
	_, seen := w.files[id]
	w.mu.Unlock()
	if seen {
		return
	}
	if !w.watch("/proc/self/fd/"+strconv.Itoa(dir)+"/"+string(name), unix.IN_DONT_FOLLOW) {
		return
	}
	// Noted once watched, not before: a scan of another name of it
	// meanwhile adds the same watch again rather than trust one not there
	// yet.
	w.mu.Lock()
	if w.files == nil {
		w.files = map[fileID]struct{}{}
	}
	w.files[id] = struct{}{}
	w.mu.Unlock()
}

// fileID is a file's identity: its device and inode.
type fileID struct{ dev, ino uint64 }

// Still reports whether every folder was watched and nothing in any of
// them changed since it was (the top folder's path naming it still).
func (w *StillWatch) Still() bool {
	if w == nil || w.broken.Load() || w.also != nil && !w.also() {
		return false
	}
	var st unix.Stat_t
	if top := w.top.Load(); top == nil || unix.Stat(w.root, &st) != nil || st.Dev != top.Dev || st.Ino != top.Ino {
		return false
	}
	n, err := unix.IoctlGetInt(w.fd, unix.TIOCINQ) // FIONREAD: the bytes of events queued
	return err == nil && n == 0
}

// Close ends the watch. An inotify watch ends in the background: freeing
// thousands of watches takes the kernel a while, and nothing waits on it;
// its watches go back to the budget once they are freed. A fanotify one
// ends at once, and with it the hold on the top folder, so that the disk
// can be unmounted as soon as its save returns.
func (w *StillWatch) Close() {
	if w == nil {
		return
	}
	if w.fan.Load() {
		unix.Close(w.pin)
		unix.Close(w.fd)
		return
	}
	stillClosing.Add(1)
	go func() {
		defer stillClosing.Done()
		unix.Close(w.fd)
		changefeed.GiveWatches(int(w.taken.Load()))
	}()
}

// stillClosing counts the still watches whose closing (and giving back
// their watches) is under way: a test that counts the budget waits for it.
var stillClosing sync.WaitGroup
