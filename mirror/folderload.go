package mirror

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// folderLoad copies a Mirror folder onto a fresh RAM disk, reading the
// folder and writing the disk through directory descriptors (never
// following a symlink on either side, never entering another file system),
// and records each path's identity and content hash for the record.
// FIFOs, sockets and devices stay in the folder only (the write-back keeps
// them), as do the names a disk keeps for itself at its root.
type folderLoad struct {
	folder, disk string
	copyFile     CopyFunc
	meter        *meter
	sides        map[string]*side
	taken        map[string]bool // names the disk's root holds already (its marker, a zram disk's lost+found)
	notKept      []NotKept       // what cannot be loaded (sockets, devices)
	stack        []loadLevel     // the folders being loaded, root first
	files        int
	bytes        int64
}

type loadLevel struct {
	rel string
	fd  int
	e   *fsEntry
	x   map[string][]byte // the folder's xattrs
}

// run loads the folder; a disk too small is refused before anything is written.
func (l *folderLoad) run(ctx context.Context, progress ProgressFunc) error {
	src, err := openDirPath(l.folder)
	if err != nil {
		return err
	}
	defer unix.Close(src)
	var pst, fst unix.Stat_t
	if err := unix.Stat(filepath.Dir(l.folder), &pst); err == nil && unix.Fstat(src, &fst) == nil && pst.Dev != fst.Dev {
		return fmt.Errorf("%s is a mount point of another file system; it cannot be mirrored", l.folder)
	}
	// The disk's mount point is RAMBar's own; below it nothing is followed.
	dst, err := openRetry(l.disk, dirFlags, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", l.disk, err)
	}
	defer unix.Close(dst)
	l.taken = map[string]bool{}
	if names, err := readNames(dst); err == nil {
		for _, n := range names {
			l.taken[n] = true
		}
	}
	need, n, err := l.room(src)
	if err != nil {
		return err
	}
	l.sides = map[string]*side{}
	l.meter = newMeter(progress, "loading", need, n)
	defer l.meter.done()
	l.stack = []loadLevel{{rel: ".", fd: dst}}
	err = walkFolder(src, func(parent int, name string, e *fsEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.rel == "." {
			l.stack[0].e = e
			l.stack[0].x, _ = fdXattrs(src)
			l.sides["."] = &side{Kind: KindDir, Mode: uint32(e.st.Mode) & 0o7777}
			return nil
		}
		return l.visit(ctx, parent, name, e)
	})
	for len(l.stack) > 1 {
		l.pop()
	}
	if err == nil {
		l.dirMeta(l.stack[0])
	}
	return err
}

// pop leaves the deepest folder being loaded: its metadata, now that its
// contents are in.
func (l *folderLoad) pop() {
	top := l.stack[len(l.stack)-1]
	l.stack = l.stack[:len(l.stack)-1]
	l.dirMeta(top)
	unix.Close(top.fd)
}

// visit loads one entry of the folder (parent is its folder's descriptor).
func (l *folderLoad) visit(ctx context.Context, parent int, name string, e *fsEntry) error {
	if !l.loads(e) {
		return nil
	}
	if why := unloadable(e); why != "" {
		l.notKept = append(l.notKept, NotKept{Path: e.rel, Why: why})
		return nil
	}
	dir, _ := splitRel(e.rel)
	for l.stack[len(l.stack)-1].rel != dir {
		if len(l.stack) == 1 {
			return fmt.Errorf("load %s: folder walk out of order at %s", l.folder, e.rel)
		}
		l.pop()
	}
	top := l.stack[len(l.stack)-1].fd
	if !e.isDir() {
		return l.entry(ctx, parent, top, name, e)
	}
	if err := unix.Mkdirat(top, name, 0o700); err != nil {
		return noSpace(fmt.Errorf("make %s on the disk: %w", e.rel, err))
	}
	fd, err := openDirAt(top, name)
	if err != nil {
		return err
	}
	lv := loadLevel{rel: e.rel, fd: fd, e: e}
	if from, err := openDirAt(parent, name); err == nil {
		lv.x, _ = fdXattrs(from)
		unix.Close(from)
	}
	l.stack = append(l.stack, lv)
	l.sides[e.rel] = &side{Kind: KindDir, Mode: uint32(e.st.Mode) & 0o7777}
	return nil
}

// room walks the folder once (no file read) and refuses a disk too small
// for it; it returns the bytes and files to load.
func (l *folderLoad) room(src int) (need int64, files int, err error) {
	err = walkFolder(src, func(_ int, _ string, e *fsEntry) error {
		if l.loads(e) {
			need += 4096
			if e.isReg() {
				need, files = need+e.st.Size, files+1
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	if free, err := freeSpace(l.disk); err == nil && need > free {
		return 0, 0, fmt.Errorf("load %s: %w: needs %s, %s free; nothing was written", l.folder, ramdisk.ErrNoSpace,
			ramdisk.Size(need).Short(), ramdisk.Size(free).Short())
	}
	return need, files, nil
}

// loads says whether e goes onto the disk: not a name the disk's root
// holds already.
func (l *folderLoad) loads(e *fsEntry) bool {
	first, _, _ := strings.Cut(e.rel, "/")
	return first != MarkerName && !l.taken[first]
}

// unloadable says why e cannot be put on a disk ("" when it can). They stay
// in the folder: the write-back keeps them.
func unloadable(e *fsEntry) string {
	switch e.st.Mode & unix.S_IFMT {
	case unix.S_IFSOCK:
		return "a socket: only the process serving it can make it again"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device node: not contents"
	}
	return ""
}

func (l *folderLoad) entry(ctx context.Context, parent, top int, name string, e *fsEntry) error {
	mode := uint32(e.st.Mode) & 0o7777
	if e.st.Mode&unix.S_IFMT == unix.S_IFIFO {
		l.fifo(top, name, e)
		return nil
	}
	if e.isLink() {
		if err := unix.Symlinkat(e.link, top, name); err != nil {
			return noSpace(fmt.Errorf("symlink %s on the disk: %w", e.rel, err))
		}
		l.owner(top, name, e)
		setTimesAt(top, name, &e.st)
		l.sides[e.rel] = &side{Kind: KindSymlink, Mode: mode, Hash: linkHash(e.link)}
		return nil
	}
	in, err := openFileAt(parent, name, &e.st)
	if err != nil {
		return fmt.Errorf("load %s: %w", e.rel, err)
	}
	defer unix.Close(in)
	var before unix.Stat_t
	unix.Fstat(in, &before)
	var sum string
	if l.copyFile != nil {
		// The hook (ditto on macOS) copies by path; the hash is of what
		// it wrote.
		if err := l.copyFile(ctx, filepath.Join(l.folder, e.rel), filepath.Join(l.disk, e.rel)); err != nil {
			return noSpace(fmt.Errorf("copy %s: %w", e.rel, err))
		}
		out, err := openFileAt(top, name, nil)
		if err != nil {
			return err
		}
		sum, err = hashFd(out)
		unix.Close(out)
		if err != nil {
			return err
		}
	} else {
		out, err := unix.Openat(top, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return noSpace(fmt.Errorf("create %s on the disk: %w", e.rel, err))
		}
		h := sha256.New()
		err = readAll(in, 0, -1, teeWriter{h, out})
		if err == nil {
			x, _ := fdXattrs(in)
			for k, v := range x {
				if xattrIsContent(k) {
					unix.Fsetxattr(out, k, v, 0)
				}
			}
			err = unix.Fchmod(out, mode)
		}
		unix.Close(out)
		if err != nil {
			return noSpace(fmt.Errorf("load %s: %w", e.rel, err))
		}
		sum = hex.EncodeToString(h.Sum(nil))
	}
	l.owner(top, name, e)
	setTimesAt(top, name, &e.st)
	s := &side{Kind: KindFile, Mode: mode, Hash: sum}
	var after unix.Stat_t
	if unix.Fstat(in, &after) == nil && identOf(&after) == identOf(&before) {
		id := identOf(&after)
		s.Ident = &id // else changed while read: the next write-back reads it again
	}
	l.sides[e.rel] = s
	l.files++
	l.bytes += e.st.Size
	l.meter.add(e.st.Size, 1)
	return nil
}

// fifo makes a FIFO on the disk as the folder has it (or names it).
func (l *folderLoad) fifo(top int, name string, e *fsEntry) {
	if err := mkfifoIn(top, name); err != nil {
		l.notKept = append(l.notKept, NotKept{Path: e.rel, Why: fmt.Sprintf("a FIFO: %v", err)})
		return
	}
	mode := uint32(e.st.Mode) & 0o7777
	unix.Fchmodat(top, name, mode, 0)
	l.owner(top, name, e)
	setTimesAt(top, name, &e.st)
	l.sides[e.rel] = &side{Kind: KindFIFO, Mode: mode}
}

// owner keeps the folder's owner on the disk when RAMBar runs as root.
func (l *folderLoad) owner(dirfd int, name string, e *fsEntry) {
	if os.Geteuid() == 0 {
		unix.Fchownat(dirfd, name, int(e.st.Uid), int(e.st.Gid), unix.AT_SYMLINK_NOFOLLOW)
	}
}

func (l *folderLoad) dirMeta(lv loadLevel) {
	if lv.e == nil {
		return
	}
	if os.Geteuid() == 0 {
		unix.Fchown(lv.fd, int(lv.e.st.Uid), int(lv.e.st.Gid))
	}
	for k, v := range lv.x {
		if xattrIsContent(k) {
			unix.Fsetxattr(lv.fd, k, v, 0)
		}
	}
	unix.Fchmod(lv.fd, uint32(lv.e.st.Mode)&0o7777)
	setTimesAt(lv.fd, ".", &lv.e.st)
}

func setTimesAt(dirfd int, name string, st *unix.Stat_t) {
	mt := tsNano(statMtime(st))
	ts := []unix.Timespec{unix.NsecToTimespec(mt), unix.NsecToTimespec(mt)}
	unix.UtimesNanoAt(dirfd, name, ts, unix.AT_SYMLINK_NOFOLLOW)
}
