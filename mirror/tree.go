package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// Kind is the type of a tree entry.
type Kind uint8

// Entry kinds.
const (
	KindFile Kind = iota + 1
	KindDir
	KindSymlink
)

// Entry is one path of a saved tree, as recorded in a manifest.
type Entry struct {
	Path  string            // slash-separated, relative to the root; "." is the root
	Kind  Kind              // file, dir or symlink
	Mode  uint32            // permission bits with setuid, setgid, sticky (unix)
	Size  int64             // bytes (files)
	MTime int64             // modification time, ns since the epoch
	Link  string            // symlink target
	Xattr map[string][]byte // extended attributes
	Obj   string            // object holding a file's contents, relative to objects/
}

// ident is what tells an unchanged file from a changed one without reading
// it: any write, chmod, chown, xattr change or replacement changes one of these.
type ident struct {
	Ino   uint64
	CTime int64
	MTime int64
	Size  int64
	Mode  uint32
}

func identOf(st *unix.Stat_t) ident {
	return ident{Ino: uint64(st.Ino), CTime: tsNano(statCtime(st)), MTime: tsNano(statMtime(st)),
		Size: st.Size, Mode: uint32(st.Mode)}
}

func tsNano(ts unix.Timespec) int64 { return int64(ts.Sec)*1e9 + int64(ts.Nsec) }

// MarkerName is the file on a kept disk that ties it to its store.
const MarkerName = ".rambar-id"

// skipAtRoot are names never saved: the marker, macOS volume bookkeeping
// and ext4's lost+found (a zram disk has one from birth).
var skipAtRoot = map[string]bool{
	MarkerName: true, "lost+found": true, ".fseventsd": true, ".Spotlight-V100": true, ".Trashes": true,
	".TemporaryItems": true, ".DocumentRevisions-V100": true,
}

// scanned is one path found by scan, with the identity from its lstat.
type scanned struct {
	rel string
	id  ident
}

// scan walks root and returns every entry (root first, then parents before
// children, sorted by path), reading directories with a few goroutines.
func scan(root string) ([]scanned, error) {
	var st unix.Stat_t
	if err := unix.Lstat(root, &st); err != nil {
		return nil, fmt.Errorf("lstat %s: %w", root, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil, fmt.Errorf("%s is not a folder", root)
	}
	var (
		mu    sync.Mutex
		byDir = map[string][]scanned{}
		errs  []error
		wg    sync.WaitGroup
		sem   = make(chan struct{}, 8)
		visit func(rel string)
	)
	visit = func(rel string) {
		defer wg.Done()
		sem <- struct{}{}
		dir := filepath.Join(root, filepath.FromSlash(rel))
		local, subdirs, err := readDir(dir, rel)
		if err != nil {
			<-sem
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
			return
		}
		<-sem
		slices.SortFunc(local, func(a, b scanned) int { return strings.Compare(a.rel, b.rel) })
		mu.Lock()
		byDir[rel] = local
		mu.Unlock()
		for _, d := range subdirs {
			wg.Add(1)
			go visit(d)
		}
	}
	wg.Add(1)
	visit(".")
	wg.Wait()
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	// Depth first, siblings sorted: exactly pathLess order.
	n := 1
	for _, l := range byDir {
		n += len(l)
	}
	out := make([]scanned, 0, n)
	out = append(out, scanned{rel: ".", id: identOf(&st)})
	var emit func(rel string)
	emit = func(rel string) {
		for _, c := range byDir[rel] {
			out = append(out, c)
			if c.id.Mode&unix.S_IFMT == unix.S_IFDIR {
				emit(c.rel)
			}
		}
	}
	emit(".")
	return out, nil
}

// direntBufs are getdents buffers, reused: a scan reads thousands of folders.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readDir lists one folder and lstats its entries relative to the folder's
// descriptor (no path walk per entry, no poller registration as os.Open
// does), keeping files, folders and symlinks.
func readDir(dir, rel string) (local []scanned, subdirs []string, err error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("read folder %s: %w", dir, err)
	}
	defer unix.Close(fd)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var names []string
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err != nil {
			return nil, nil, fmt.Errorf("read folder %s: %w", dir, err)
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
	local = make([]scanned, 0, len(names))
	for _, n := range names {
		if rel == "." && (skipAtRoot[n] || ramdisk.IsScratch(n)) {
			continue
		}
		r := n
		if rel != "." {
			r = rel + "/" + n
		}
		var s unix.Stat_t
		if err := unix.Fstatat(fd, n, &s, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // deleted while we looked: not part of this save
			}
			return nil, nil, fmt.Errorf("lstat %s: %w", filepath.Join(dir, n), err)
		}
		switch s.Mode & unix.S_IFMT {
		case unix.S_IFREG, unix.S_IFLNK:
		case unix.S_IFDIR:
			subdirs = append(subdirs, r)
		default:
			continue // sockets, fifos, devices are not contents
		}
		local = append(local, scanned{rel: r, id: identOf(&s)})
	}
	return local, subdirs, nil
}

// pathLess orders paths so that a folder comes right before its contents:
// "." first, then component by component.
func pathLess(a, b string) bool {
	if a == "." || b == "." {
		return a == "." && b != "."
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x == '/' {
			return true
		}
		if y == '/' {
			return false
		}
		return x < y
	}
	return len(a) < len(b)
}

func kindOf(mode uint32) Kind {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return KindDir
	case unix.S_IFLNK:
		return KindSymlink
	}
	return KindFile
}

// entryOf reads the full metadata of a scanned path (xattrs, link target).
func entryOf(root string, s scanned) (Entry, error) {
	p := filepath.Join(root, filepath.FromSlash(s.rel))
	e := Entry{Path: s.rel, Kind: kindOf(s.id.Mode), Mode: s.id.Mode & 0o7777, MTime: s.id.MTime}
	switch e.Kind {
	case KindFile:
		e.Size = s.id.Size
	case KindSymlink:
		l, err := os.Readlink(p)
		if err != nil {
			return e, fmt.Errorf("readlink %s: %w", p, err)
		}
		e.Link = l
	}
	x, err := readXattrs(p)
	if err != nil {
		return e, err
	}
	e.Xattr = x
	return e, nil
}

// applyMeta sets mode, xattrs and modification time of p from e (times last,
// since the others change them on some systems).
func applyMeta(p string, e Entry) error { return setMeta(p, e, true) }

// filePerm is the permission of a file entry as os.Chmod takes it.
func filePerm(e Entry) fs.FileMode { return fs.FileMode(e.Mode&0o777) | modeBits(e.Mode) }

func setMeta(p string, e Entry, chmod bool) error {
	if chmod && e.Kind != KindSymlink {
		if err := os.Chmod(p, fs.FileMode(e.Mode&0o777)|modeBits(e.Mode)); err != nil {
			return fmt.Errorf("chmod %s: %w", p, err)
		}
	}
	if err := writeXattrs(p, e.Xattr); err != nil {
		return err
	}
	ts := []unix.Timespec{unix.NsecToTimespec(e.MTime), unix.NsecToTimespec(e.MTime)}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("set times of %s: %w", p, err)
	}
	return nil
}

func modeBits(m uint32) fs.FileMode {
	var f fs.FileMode
	if m&unix.S_ISUID != 0 {
		f |= fs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		f |= fs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		f |= fs.ModeSticky
	}
	return f
}

// readXattrs returns p's extended attributes (not following symlinks). On
// Linux only the user.* namespace is contents; others belong to the system.
func readXattrs(p string) (map[string][]byte, error) {
	buf := make([]byte, 1024)
	var n int
	var err error
	for {
		n, err = unix.Llistxattr(p, buf)
		if errors.Is(err, unix.ERANGE) {
			buf = make([]byte, len(buf)*4)
			continue
		}
		break
	}
	if err != nil {
		if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EPERM) {
			return nil, nil
		}
		return nil, fmt.Errorf("list xattrs of %s: %w", p, err)
	}
	if n == 0 {
		return nil, nil
	}
	out := map[string][]byte{}
	for _, name := range strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00") {
		if name == "" || !xattrIsContent(name) {
			continue
		}
		val := make([]byte, 256)
		for {
			m, err := unix.Lgetxattr(p, name, val)
			if errors.Is(err, unix.ERANGE) {
				val = make([]byte, len(val)*8)
				continue
			}
			if errors.Is(err, errNoAttr) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("read xattr %s of %s: %w", name, p, err)
			}
			out[name] = append([]byte(nil), val[:m]...)
			break
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func writeXattrs(p string, x map[string][]byte) error {
	for name, v := range x {
		if err := unix.Lsetxattr(p, name, v, 0); err != nil {
			if errors.Is(err, unix.EPERM) && kindOfPath(p) == KindSymlink {
				continue // Linux refuses user.* xattrs on symlinks
			}
			return fmt.Errorf("set xattr %s of %s: %w", name, p, err)
		}
	}
	return nil
}

func kindOfPath(p string) Kind {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return 0
	}
	return kindOf(uint32(st.Mode))
}

// noSpace wraps disk-full errors with ramdisk.ErrNoSpace.
func noSpace(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: %w", ramdisk.ErrNoSpace, err)
	}
	return err
}

// copyData copies src's bytes to a new file dst (created exclusively with
// mode 0600), letting the kernel move the data (kernelCopy); sync fsyncs
// dst before closing.
//
// sameFS says src and dst share a file system: only then are reflinks and
// copy_file_range tried. perm, when not 0, is set on dst through its
// descriptor before it is closed (restores skip a path lookup per file).
// Both files are opened as bare descriptors: os.File would try (and fail)
// to register each regular file with the poller, several system calls per
// file that dominate copying many small files.
//
// src may name a range of a pack object (see store.objPath): the pack's
// path, a NUL, the offset, a NUL and the size.
//
// mtime, when not nil, is set as dst's modification (and access) time
// through the descriptor, last; timed reports that it was (else the caller
// sets times by path). A restore of a file without xattrs then needs no
// further call on it.
func copyData(src, dst string, sameFS bool, sync bool, perm fs.FileMode, mtime *int64) (n int64, timed bool, err error) {
	n, err = copyBytes(src, dst, sameFS, sync, perm, mtime, &timed)
	return n, timed, err
}

func copyBytes(src, dst string, sameFS bool, sync bool, perm fs.FileMode, mtime *int64, timed *bool) (int64, error) {
	src, off, size, packed, err := splitPacked(src)
	if err != nil {
		return 0, err
	}
	clone := sameFS && !packed
	if clone {
		if err := cloneFile(src, dst); err == nil {
			if perm != 0 {
				if err := os.Chmod(dst, perm); err != nil {
					return 0, fmt.Errorf("chmod %s: %w", dst, err)
				}
			}
			st, err := os.Lstat(dst)
			if err != nil {
				return 0, err
			}
			return st.Size(), nil
		}
	}
	in, err := openRetry(src, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", src, err)
	}
	defer unix.Close(in)
	// Created with its final permission when the umask keeps it whole,
	// saving a chmod.
	mode := uint32(0o600)
	if perm != 0 && perm&^fs.ModePerm == 0 && uint32(perm)&createMask == 0 {
		mode, perm = uint32(perm), 0
	}
	out, err := openRetry(dst, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, mode)
	if err != nil {
		return 0, noSpace(fmt.Errorf("create %s: %w", dst, err))
	}
	var n int64
	if packed {
		n, err = size, rangeCopy(out, in, off, size)
	} else {
		n, err = kernelCopy(out, in, sameFS)
	}
	if err == nil && perm != 0 {
		err = retryEINTR(func() error { return unix.Fchmod(out, unixMode(perm)) })
	}
	if err == nil && mtime != nil {
		if terr := setTimesFd(out, *mtime); terr == nil {
			*timed = true
		} else if !errors.Is(terr, errors.ErrUnsupported) {
			err = fmt.Errorf("set times of %s: %w", dst, terr)
		}
	}
	if err == nil && sync {
		err = retryEINTR(func() error { return unix.Fsync(out) })
	}
	if cerr := unix.Close(out); err == nil {
		err = cerr
	}
	if err != nil {
		return n, noSpace(fmt.Errorf("copy %s to %s: %w", src, dst, err))
	}
	return n, nil
}

// splitPacked reads a packed source (see copyData).
func splitPacked(src string) (path string, off, size int64, packed bool, err error) {
	path, rest, packed := strings.Cut(src, "\x00")
	if !packed {
		return src, 0, 0, false, nil
	}
	o, s, _ := strings.Cut(rest, "\x00")
	off, err1 := strconv.ParseInt(o, 10, 64)
	size, err2 := strconv.ParseInt(s, 10, 64)
	if err1 != nil || err2 != nil || off < 0 || size < 0 {
		return "", 0, 0, false, fmt.Errorf("bad packed object %q in %s: %w", rest, path, errBadManifest)
	}
	return path, off, size, true, nil
}

// rangeCopy copies size bytes at off of in to out (at its position).
func rangeCopy(out, in int, off, size int64) error {
	if size == 0 {
		return nil
	}
	if err := kernelRangeCopy(out, in, off, size); err == nil || !errors.Is(err, unix.EINVAL) {
		return err
	}
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	for size > 0 {
		k := int64(len(buf))
		if k > size {
			k = size
		}
		n, err := unix.Pread(in, buf[:k], off)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("pack ends %d bytes early: %w", size, errBadManifest)
		}
		for w := 0; w < n; {
			m, err := unix.Write(out, buf[w:n])
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				return err
			}
			w += m
		}
		off += int64(n)
		size -= int64(n)
	}
	return nil
}

// createMask is the process's umask, read once: a file created with a
// mode it clears no bit of needs no chmod afterwards.
var createMask = func() uint32 {
	m := unix.Umask(0)
	unix.Umask(m)
	return uint32(m)
}()

// openRetry is open(2), retried when interrupted by a signal.
func openRetry(path string, flags int, mode uint32) (int, error) {
	for {
		fd, err := unix.Open(path, flags, mode)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// unixMode converts permission bits with setuid, setgid and sticky to
// chmod(2)'s mode.
func unixMode(perm fs.FileMode) uint32 {
	m := uint32(perm.Perm())
	if perm&fs.ModeSetuid != 0 {
		m |= unix.S_ISUID
	}
	if perm&fs.ModeSetgid != 0 {
		m |= unix.S_ISGID
	}
	if perm&fs.ModeSticky != 0 {
		m |= unix.S_ISVTX
	}
	return m
}

// copyBufs are readWriteCopy's buffers.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// readWriteCopy copies in to out through a buffer, until end of file.
func readWriteCopy(out, in int) (int64, error) {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	var done int64
	for {
		n, err := unix.Read(in, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, nil
		}
		for w := 0; w < n; {
			m, err := unix.Write(out, buf[w:n])
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				return done, err
			}
			w += m
			done += int64(m)
		}
	}
}

// Progress is how far a save, restore or reclaim has come. Totals are known
// from the start (the tree is scanned first).
type Progress struct {
	Phase      string // "saving", "restoring", "copying out", "copying back", "verifying"
	BytesDone  int64
	BytesTotal int64
	FilesDone  int
	FilesTotal int
}

// Percent is the share done, by bytes when there are any, else by files.
func (p Progress) Percent() int {
	switch {
	case p.BytesTotal > 0:
		return int(100 * p.BytesDone / p.BytesTotal)
	case p.FilesTotal > 0:
		return 100 * p.FilesDone / p.FilesTotal
	}
	return 100
}

// String is the tray's and CLI's wording: "Saving… 45% (1.2 GiB of 2.6 GiB, 4,010 of 9,000 files)".
func (p Progress) String() string {
	phase := p.Phase
	if phase != "" {
		phase = strings.ToUpper(phase[:1]) + phase[1:]
	}
	return fmt.Sprintf("%s… %d%% (%s of %s, %d of %d files)", phase, p.Percent(),
		ramdisk.Size(p.BytesDone).Short(), ramdisk.Size(p.BytesTotal).Short(), p.FilesDone, p.FilesTotal)
}

// ProgressFunc receives progress; it is called from one goroutine at a time,
// at most every 100 ms and once at the end.
type ProgressFunc func(Progress)

// meter counts work done and reports it through a ProgressFunc, throttled.
type meter struct {
	mu   sync.Mutex
	p    Progress
	fn   ProgressFunc
	last time.Time
}

func newMeter(fn ProgressFunc, phase string, bytes int64, files int) *meter {
	m := &meter{fn: fn, p: Progress{Phase: phase, BytesTotal: bytes, FilesTotal: files}}
	m.report(true)
	return m
}

func (m *meter) add(bytes int64, files int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.p.BytesDone += bytes
	m.p.FilesDone += files
	m.mu.Unlock()
	m.report(false)
}

func (m *meter) report(force bool) {
	if m == nil || m.fn == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !force && time.Since(m.last) < 100*time.Millisecond {
		return
	}
	m.last = time.Now()
	m.fn(m.p)
}

func (m *meter) done() { m.report(true) }

// pool runs fn over n jobs with a bounded number of workers and returns the
// first error; after an error no new jobs start.
func pool(n, workers int, fn func(i int) error) error {
	if workers > n {
		workers = n
	}
	var (
		mu    sync.Mutex
		first error
		next  int
		wg    sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if first != nil || next >= n {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// workers is the copy parallelism: enough to overlap the per-file latency
// of small files (open, create, close), bounded for memory and descriptors.
const workers = 8
