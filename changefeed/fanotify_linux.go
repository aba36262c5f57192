//go:build linux

package changefeed

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fanMask is Mask as fanotify asks for it: every change a save would
// store, on folders too (FAN_ONDIR).
const fanMask = unix.FAN_MODIFY | unix.FAN_ATTRIB | unix.FAN_CREATE | unix.FAN_DELETE | unix.FAN_MOVED_FROM |
	unix.FAN_MOVED_TO | unix.FAN_DELETE_SELF | unix.FAN_MOVE_SELF | unix.FAN_ONDIR

// fanInit are the fanotify_init flags: events name the folder (its file
// handle) and the entry (FAN_REPORT_DFID_NAME), and the object itself
// (FAN_REPORT_FID; FAN_REPORT_TARGET_FID: a folder made or moved is known
// by its handle from that event on).
const fanInit = unix.FAN_CLASS_NOTIF | unix.FAN_CLOEXEC | unix.FAN_NONBLOCK | unix.FAN_REPORT_DFID_NAME_TARGET

// fanFeed is what a feed that follows its disk by fanotify keeps: one
// filesystem mark (FAN_MARK_FILESYSTEM) sees every change on the disk's
// file system, which, for a tmpfs or a zram disk, is the disk, with no
// watch per folder. Each event names its folder by a file handle; the
// feed knows the handles of the folders the save's scan opened (Watch)
// and of those made or moved in since (their events), and asks the kernel
// for any other (open_by_handle_at). A folder it cannot find makes the
// feed Lost, never a change left out; a folder outside root (another
// mount of the same file system showing more of it) is none of the disk's.
type fanFeed struct {
	// canon is root as the kernel names it (the path of a descriptor of
	// it), which the paths of resolved handles start with.
	canon string
	fsid  [8]byte
	mu    sync.Mutex
	dirs  map[string]string // a folder's handle (handleKey) → its place under root
	// outside are handles of folders found outside root (bounded).
	outside map[string]bool
	// marked are the folders marked one by one (a group of inode marks,
	// marks_linux.go; nil for a filesystem mark), by handle.
	marked map[string]bool
}

// maxOutside is how many handles of folders outside root a feed keeps.
const maxOutside = 4096

// openFanotify starts following the disk at root with one fanotify mark,
// when the process may (CAP_SYS_ADMIN) and the disk is a file system of
// its own that reports file handles and an fsid; else nil and why not
// (the caller follows the disk with inotify and says why).
func openFanotify(root string, ignored func(folder, name string) bool) (*Feed, string) {
	top, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Sprintf("open %s: %v", root, err)
	}
	defer unix.Close(top)
	if why := ownFileSystem(top); why != "" {
		return nil, why
	}
	var sfs unix.Statfs_t
	if err := unix.Fstatfs(top, &sfs); err != nil {
		return nil, fmt.Sprintf("fstatfs %s: %v", root, err)
	}
	canon, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(top))
	if err != nil {
		return nil, fmt.Sprintf("readlink %s: %v", root, err)
	}
	h, _, err := unix.NameToHandleAt(top, "", unix.AT_EMPTY_PATH)
	if err != nil {
		return nil, fmt.Sprintf("name_to_handle_at %s: the file system gives no file handles (%v)", root, err)
	}
	fd, err := unix.FanotifyInit(fanInit, unix.O_RDONLY|unix.O_CLOEXEC)
	if err != nil {
		if errors.Is(err, unix.EPERM) {
			return nil, "fanotify_init: not allowed (a filesystem mark needs root or CAP_SYS_ADMIN)"
		}
		return nil, fmt.Sprintf("fanotify_init: %v (this kernel cannot name folders by handle)", err)
	}
	err = unix.FanotifyMark(fd, unix.FAN_MARK_ADD|unix.FAN_MARK_FILESYSTEM, fanMask, top, "")
	if err != nil {
		unix.Close(fd)
		switch {
		case errors.Is(err, unix.EPERM):
			return nil, "fanotify_mark: not allowed (a filesystem mark needs root or CAP_SYS_ADMIN)"
		case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EXDEV), errors.Is(err, unix.ENODEV):
			return nil, fmt.Sprintf("fanotify_mark %s: the file system reports no usable file handles or fsid (%v)", root, err)
		}
		return nil, fmt.Sprintf("fanotify_mark %s: %v", root, err)
	}
	fan := &fanFeed{canon: canon, dirs: map[string]string{handleKey(h.Type(), h.Bytes()): "."}, outside: map[string]bool{}}
	fan.fsid = fsidOf(&sfs)
	f := &Feed{pending: newPending(ignored, true), root: root, fd: fd, file: os.NewFile(uintptr(fd), "fanotify"),
		wds: map[int32]string{}, buf: make([]byte, 64<<10), closed: make(chan struct{}), mode: ModeNative, mask: Mask}
	f.ext.fan = fan
	go f.read()
	return f, ""
}

// ownFileSystem says why the folder top is not the whole of a file system
// mounted there ("" when it is): a filesystem mark on any other folder
// would see changes that are not the disk's.
func ownFileSystem(top int) string {
	var stx unix.Statx_t
	if err := unix.Statx(top, "", unix.AT_EMPTY_PATH, unix.STATX_MNT_ID, &stx); err != nil {
		return fmt.Sprintf("statx: %v", err)
	}
	if stx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && stx.Attributes&unix.STATX_ATTR_MOUNT_ROOT == 0 {
		return "the disk's folder is not a mount point: a filesystem mark would see the whole file system it is on"
	}
	file, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return fmt.Sprintf("open mountinfo: %v", err)
	}
	defer file.Close()
	id := strconv.FormatUint(stx.Mnt_id, 10) + " "
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// "36 35 98:0 /mnt1 /mnt/parent rw … - ext3 /dev/root rw": the
		// fourth field is the folder of the file system mounted.
		if line := sc.Text(); strings.HasPrefix(line, id) {
			if f := strings.Fields(line); len(f) > 4 && f[3] != "/" {
				return "the disk is a folder of a larger file system (bind mount of " + f[3] + "): a filesystem mark would see all of it"
			}
			return ""
		}
	}
	return "mount " + strings.TrimSpace(id) + " is not in /proc/self/mountinfo"
}

// gone says why root is no longer the file system fan follows ("" while
// it is): unmounted, or another mounted there.
func (fan *fanFeed) gone(root string) string {
	var sfs unix.Statfs_t
	if err := unix.Statfs(root, &sfs); err != nil {
		return fmt.Sprintf("statfs %s: %v", root, err)
	}
	if fsidOf(&sfs) != fan.fsid {
		return "the disk was unmounted (another file system is at its mount point)"
	}
	return ""
}

// fsidOf is a file system's fsid as fanotify's events carry it.
func fsidOf(sfs *unix.Statfs_t) (fsid [8]byte) {
	binary.NativeEndian.PutUint32(fsid[:4], uint32(sfs.Fsid.Val[0]))
	binary.NativeEndian.PutUint32(fsid[4:], uint32(sfs.Fsid.Val[1]))
	return fsid
}

// handleKey is a file handle as a map key: its type, then its bytes.
func handleKey(typ int32, b []byte) string {
	k := make([]byte, 4, 4+len(b))
	binary.NativeEndian.PutUint32(k, uint32(typ))
	return string(append(k, b...))
}

// fanWatch learns the handle of folder rel, open as dir: the events of
// its changes name it so. No watch is added: the mark sees every folder.
func (f *Feed) fanWatch(dir int, rel string) {
	h, _, err := unix.NameToHandleAt(dir, "", unix.AT_EMPTY_PATH)
	if err != nil {
		if !errors.Is(err, unix.ESTALE) && !errors.Is(err, unix.ENOENT) {
			f.lose(fmt.Sprintf("name_to_handle_at %s: %v", rel, err))
		}
		return
	}
	fan := f.ext.fan
	fan.mu.Lock()
	fan.dirs[handleKey(h.Type(), h.Bytes())] = rel
	fan.mu.Unlock()
}

// fanEvents records a read's events of the feed's filesystem mark.
func (f *Feed) fanEvents(b []byte, at time.Time) { f.fanEventsOf(f.ext.fan, b, at) }

// fanEventsOf records a read's fanotify events of the group fan follows.
func (f *Feed) fanEventsOf(fan *fanFeed, b []byte, at time.Time) {
	mnt := -1 // root, opened for open_by_handle_at when a handle is not known
	defer func() {
		if mnt >= 0 {
			unix.Close(mnt)
		}
	}()
	for len(b) >= unix.FAN_EVENT_METADATA_LEN {
		m := (*unix.FanotifyEventMetadata)(unsafe.Pointer(&b[0]))
		if int(m.Event_len) < unix.FAN_EVENT_METADATA_LEN || int(m.Event_len) > len(b) || int(m.Metadata_len) > int(m.Event_len) ||
			m.Vers != unix.FANOTIFY_METADATA_VERSION {
			f.lose("a torn or unknown fanotify event")
			return
		}
		if m.Fd >= 0 {
			unix.Close(int(m.Fd)) // none with handles reported; never leaked
		}
		if m.Mask&unix.FAN_Q_OVERFLOW != 0 {
			f.lose("more changes at once than the system queues (fanotify's queue overflowed)")
		} else {
			f.fanEvent(fan, m.Mask, b[m.Metadata_len:m.Event_len], at, &mnt)
		}
		b = b[m.Event_len:]
	}
}

// fanInfo is what one event's information records tell.
type fanInfo struct {
	// dir and obj are the handles of the folder and of the object (nil:
	// none) as handleKey makes keys (the record's handle_type and
	// f_handle, which lie so): looked up with no copy.
	dir, obj     []byte
	name         string // the entry in dir ("." : dir itself)
	hasDir, torn bool
	other        bool // a record of another file system
}

// parseInfo reads an event's information records (struct
// fanotify_event_info_fid: header, fsid, file_handle, name).
func (fan *fanFeed) parseInfo(b []byte) fanInfo {
	var in fanInfo
	for len(b) >= 4 {
		typ, n := b[0], int(binary.NativeEndian.Uint16(b[2:4]))
		if n < 4 || n > len(b) {
			in.torn = true
			return in
		}
		rec := b[:n]
		b = b[n:]
		if typ != unix.FAN_EVENT_INFO_TYPE_FID && typ != unix.FAN_EVENT_INFO_TYPE_DFID && typ != unix.FAN_EVENT_INFO_TYPE_DFID_NAME {
			continue
		}
		if len(rec) < 20 {
			in.torn = true
			return in
		}
		if !bytes.Equal(rec[4:12], fan.fsid[:]) {
			in.other = true
		}
		hb := int(binary.NativeEndian.Uint32(rec[12:16]))
		if 20+hb > len(rec) {
			in.torn = true
			return in
		}
		key := rec[16 : 20+hb]
		if typ == unix.FAN_EVENT_INFO_TYPE_FID {
			in.obj = key
			continue
		}
		in.dir, in.hasDir = key, true
		if typ == unix.FAN_EVENT_INFO_TYPE_DFID_NAME {
			name := rec[20+hb:]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			in.name = string(name)
		}
	}
	return in
}

// fanEvent records one event of mask m with information records b.
func (f *Feed) fanEvent(fan *fanFeed, m uint64, b []byte, at time.Time, mnt *int) {
	in := fan.parseInfo(b)
	switch {
	case in.torn:
		f.lose("a torn fanotify event")
		return
	case in.other:
		return // not the disk's file system (the mark is on its only)
	case !in.hasDir:
		// An object's own event with no folder: a file's removal or move
		// (its folder's event), its count of names (the link's or
		// unlink's folder event). A write through a handle (no path) is
		// one no folder can be named for.
		if m&unix.FAN_ONDIR == 0 && m&unix.FAN_MODIFY != 0 {
			f.lose("a file was written with no path (through a file handle): fanotify cannot name its folder")
		}
		return
	}
	rel, inside, err := f.fanFolder(fan, in.dir, mnt)
	switch {
	case errors.Is(err, errFolderGone):
		// Removed since (a DELETE_SELF after its parent's DELETE, or a
		// change inside a tree being removed): its removal is an event of
		// its parent, which names it.
		return
	case err != nil:
		f.lose(fmt.Sprintf("fanotify named a folder that cannot be found: %v", err))
		return
	case !inside:
		return // another mount's part of the file system, outside the disk
	}
	if in.name == "." || in.name == "" {
		f.fanSelf(fan, m, in.dir, rel, at)
		return
	}
	child := joinRel(rel, in.name)
	if m&unix.FAN_ONDIR != 0 && in.obj != nil {
		fan.mu.Lock()
		switch {
		case m&unix.FAN_DELETE != 0: // made (or moved in) and removed again
			delete(fan.dirs, string(in.obj))
		case m&(unix.FAN_CREATE|unix.FAN_MOVED_TO) != 0:
			fan.dirs[string(in.obj)] = child
		}
		fan.mu.Unlock()
	}
	if m&unix.FAN_ONDIR == 0 && m&(unix.FAN_CREATE|unix.FAN_MOVED_TO) != 0 {
		f.made(rel, in.name, unix.IN_CREATE)
	}
	f.add(rel, in.name, at)
}

// errFolderGone is a folder an event names that no longer exists.
var errFolderGone = errors.New("the folder was removed")

// fanSelf records an event of folder rel itself (handle key dir): its
// metadata changed (the folder and its entry in its parent), or it was
// removed or moved (its parent's event; the top folder's: lost).
func (f *Feed) fanSelf(fan *fanFeed, m uint64, dir []byte, rel string, at time.Time) {
	if m&unix.FAN_DELETE_SELF != 0 {
		fan.mu.Lock()
		delete(fan.dirs, string(dir))
		delete(fan.marked, string(dir)) // its mark went with it
		fan.mu.Unlock()
	}
	if rel == "." && m&(unix.FAN_DELETE_SELF|unix.FAN_MOVE_SELF) != 0 {
		f.lose("the disk's top folder was removed or moved")
		return
	}
	if m&(unix.FAN_ATTRIB|unix.FAN_MODIFY) == 0 {
		return
	}
	f.add(rel, "", at)
	if rel != "." {
		parent, name := splitRelPath(rel)
		f.add(parent, name, at)
	}
}

// fanFolder is the place under root of the folder of handle key
// (handleKey's form): as known, else as the kernel finds it now (inside
// false: outside root). A folder the kernel cannot find (ESTALE: removed
// since) is an error: nothing tells which folder it was.
func (f *Feed) fanFolder(fan *fanFeed, key []byte, mnt *int) (rel string, inside bool, err error) {
	fan.mu.Lock()
	rel, known := fan.dirs[string(key)]
	out := fan.outside[string(key)]
	fan.mu.Unlock()
	if known || out {
		return rel, known, nil
	}
	if *mnt < 0 {
		if *mnt, err = unix.Open(f.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
			return "", false, fmt.Errorf("open %s: %w", f.root, err)
		}
	}
	h := unix.NewFileHandle(int32(binary.NativeEndian.Uint32(key[:4])), key[4:])
	fd, err := unix.OpenByHandleAt(*mnt, h, unix.O_PATH|unix.O_CLOEXEC)
	if errors.Is(err, unix.ESTALE) {
		return "", false, fmt.Errorf("open_by_handle_at: %w", errFolderGone)
	}
	if err != nil {
		return "", false, fmt.Errorf("open_by_handle_at: %w", err)
	}
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	unix.Close(fd)
	switch {
	case err != nil:
		return "", false, fmt.Errorf("readlink of a folder opened by handle: %w", err)
	case strings.HasSuffix(p, " (deleted)"):
		return "", false, fmt.Errorf("open_by_handle_at: %s: %w", p, errFolderGone)
	case p == fan.canon:
		rel = "."
	case strings.HasPrefix(p, fan.canon+"/"):
		rel = p[len(fan.canon)+1:]
	default:
		fan.mu.Lock()
		if len(fan.outside) >= maxOutside {
			clear(fan.outside)
		}
		fan.outside[string(key)] = true
		fan.mu.Unlock()
		return "", false, nil
	}
	fan.mu.Lock()
	fan.dirs[string(key)] = rel
	fan.mu.Unlock()
	return rel, true, nil
}

// joinRel is name in folder rel.
func joinRel(rel, name string) string {
	if rel == "." {
		return name
	}
	return rel + "/" + name
}
