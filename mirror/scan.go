package mirror

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// scanned is one path found by scan, with the identity and the rest of
// the metadata from its lstat, kept small: a save holds one per path.
type scanned struct {
	rel       string
	id        ident
	atimeSec  int64
	mtimeSec  int64 // with id.MTime, the modification time (see mtime)
	blocks    int64 // 512-byte blocks allocated
	atimeNsec uint32
	uid, gid  uint32
	// hardLink, for a file with other links, is 1 + the place in the scan
	// of the first of them, if not this one (scanAll's linkGroups); until
	// then -1 marks a file with other links.
	hardLink int32
}

// sparse reports whether the file holds fewer blocks than bytes.
func (s *scanned) sparse() bool { return s.blocks*512 < s.id.Size }

// atime is the access time.
func (s *scanned) atime() unix.Timespec {
	return unix.Timespec{Sec: s.atimeSec, Nsec: int64(s.atimeNsec)}
}

// mtime is the modification time: its seconds, and its nanoseconds from
// id.MTime (seconds and nanoseconds in one int64, wrapping past 2262: the
// difference is exact either way).
func (s *scanned) mtime() unix.Timespec {
	return unix.Timespec{Sec: s.mtimeSec, Nsec: s.id.MTime - s.mtimeSec*1e9}
}

func scannedOf(rel string, st *unix.Stat_t) scanned {
	a, m := statAtime(st), statMtime(st)
	s := scanned{rel: rel, id: identOf(st), atimeSec: int64(a.Sec), atimeNsec: uint32(a.Nsec), mtimeSec: int64(m.Sec),
		uid: st.Uid, gid: st.Gid, blocks: int64(st.Blocks)}
	if st.Nlink > 1 && st.Mode&unix.S_IFMT == unix.S_IFREG {
		s.hardLink = -1
	}
	return s
}

// NotKept names a path a save could not keep, or something of it a
// restore could not set, and why.
type NotKept struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// isReserved reports whether name at the root of the folder held by fd
// (lstat st) is not contents: the marker, RAMBar's own scratch folders
// (ramdisk.IsScratch: the benchmark's files), its folder of app caches
// (ramdisk.FallbackLink: `cache on` puts them there; they are never saved,
// so never restored or written back into a mirrored folder), or a folder
// the file system itself made and the user left empty (reservedName;
// keepLF, when set, says whether the saved tree holds a lost+found of the
// user's: then it is kept even empty).
func isReserved(fd int, name string, st *unix.Stat_t, keepLF func() bool) bool {
	return name == MarkerName || name == ramdisk.FallbackLink || ramdisk.IsScratch(name) || reservedName(fd, name, st, keepLF)
}

// reservedIn returns isReserved for the names at the root of dir.
func reservedIn(dir string) func(name string) bool {
	names := map[string]bool{MarkerName: true}
	if fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
		all, _ := dirNames(fd)
		for _, n := range all {
			var st unix.Stat_t
			if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && isReserved(fd, n, &st, nil) {
				names[n] = true
			}
		}
		unix.Close(fd)
	}
	return func(name string) bool { return names[name] }
}

// scan walks root and returns every entry (root first, then parents before
// children, sorted by path), reading directories with a few goroutines.
func scan(root string) ([]scanned, error) {
	items, _, err := scanAll(root, 0)
	return items, err
}

// scanAll is scan that also names the sockets and device nodes it skipped;
// hint is about how many paths to expect (the index's count: the slice is
// then made once, at its size). It is the whole disk, as a reclaim copies
// it: RAMBar's Caches folder included (a save's scan, scanMatching, leaves
// it out).
func scanAll(root string, hint int) ([]scanned, []NotKept, error) {
	return scanWith(root, hint, nil, treeOpts{caches: true})
}

// scanWith scans root, feeding each path to m (nil: none), and keeps them
// all (in scan order, hard links grouped).
func scanWith(root string, hint int, m Matcher, o treeOpts) ([]scanned, []NotKept, error) {
	var st unix.Stat_t
	if err := unix.Lstat(root, &st); err != nil {
		return nil, nil, fmt.Errorf("lstat %s: %w", root, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil, nil, fmt.Errorf("%s is not a folder", root)
	}
	out := prefault(make([]scanned, 0, max(hint+hint/16, 64)))
	out, notKept, err := readTree(root, append(out, scannedOf(".", &st)), m, o)
	if err != nil {
		return nil, nil, err
	}
	linkGroups(out)
	slices.SortFunc(notKept, func(a, b NotKept) int { return strings.Compare(a.Path, b.Path) })
	return out, notKept, nil
}

// inodesUsed is how many inodes the file system holding root uses (at most
// 4 million), or 0 if it cannot tell: for the root of a RAM disk, about
// how many paths a scan will find.
func inodesUsed(root string) int {
	var fs unix.Statfs_t
	if unix.Statfs(root, &fs) != nil || fs.Ffree > fs.Files {
		return 0
	}
	return int(min(uint64(fs.Files-fs.Ffree), 4<<20))
}

// prefault writes to every page of s's backing array before anything else
// touches it, with a store that needs no write barrier. A large fresh
// allocation is untouched memory: while the collector runs, each first
// store of an entry (it holds pointers) goes through a write barrier that
// reads the slot first, mapping the page to the zero page, and the store
// is then a copy-on-write fault that flushes every core's TLB (an
// interprocessor interrupt per page: perf showed a seventh of a save with
// nothing changed in them). Where the system can, one call maps them all
// (populate), rather than a fault per page.
func prefault(s []scanned) []scanned {
	all := s[:cap(s)]
	if len(all) > 0 && populate(unsafe.Slice((*byte)(unsafe.Pointer(&all[0])), len(all)*int(unsafe.Sizeof(scanned{})))) {
		return s
	}
	step := max(4096/int(unsafe.Sizeof(scanned{})), 1)
	for i := 0; i < len(all); i += step {
		all[i].blocks = 0 // not a pointer: no write barrier reads the page first
	}
	return s
}

// linkGroups marks every regular file with other links to its inode as a
// hard link to the first of them in scan order.
func linkGroups(items []scanned) {
	first := map[uint64]int32{}
	for i := range items {
		it := &items[i]
		if it.hardLink != -1 {
			continue
		}
		if p, ok := first[it.id.Ino]; ok {
			it.hardLink = p + 1
		} else {
			first[it.id.Ino], it.hardLink = int32(i), 0
		}
	}
}

// hardLinkOf is the path of the file items[i] is a second link to, "" if
// none.
func hardLinkOf(items []scanned, i int) string {
	if l := items[i].hardLink; l > 0 {
		return items[l-1].rel
	}
	return ""
}

// found is one entry of a folder as readDir takes it: kept (a subfolder
// when item is a folder), skipped and named (why), or left out.
type found struct {
	item scanned
	keep bool
	why  string
}

// lstatFailed is an entry's lstat error, told apart from its folder's.
type lstatFailed struct{ err error }

func (e lstatFailed) Error() string { return e.err.Error() }

// folderPath is the path of folder rel under root, for messages: a scan
// does not build it for every folder it reads.
func folderPath(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }

// direntBufs are getdents buffers, reused: a scan reads thousands of folders.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readDir lists one folder, rel under the open folder top (root, named in
// errors only), into list (its old contents dropped), sorted, and lstats its entries relative to the folder's descriptor (no path walk
// per entry, no poller registration as os.Open does), keeping files,
// folders, symlinks and FIFOs; sockets and device nodes are named in
// skipped. A folder removed or replaced since its parent was read holds
// nothing: the disk is in use, and a save looks again (settle.go). What
// is not contents at the top is left out as o says.
func readDir(top int, root, rel string, list *[]scanned, o treeOpts) (subdirs []string, skipped []NotKept, err error) {
	*list = (*list)[:0]
	fd, err := openNoAtimeAt(top, rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW)
	if rel != "." && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP)) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read folder %s: %w", folderPath(root, rel), err)
	}
	defer unix.Close(fd)
	o.still.add(fd, root, rel) // before its names are read
	all := *list
	grow := func(n int) { all = slices.Grow(all, n) }
	take := func(n []byte, s *unix.Stat_t, err error) (found, error) {
		if errors.Is(err, unix.ENOENT) {
			return found{}, nil // deleted while we looked: not part of this save
		}
		if err != nil {
			return found{}, lstatFailed{fmt.Errorf("lstat %s: %w", filepath.Join(folderPath(root, rel), string(n)), err)}
		}
		var r string
		if rel == "." {
			if r = string(n); isReserved(fd, r, s, o.keepLF) && !(o.caches && r == ramdisk.FallbackLink) {
				return found{}, nil
			}
		} else {
			r = rel + "/" + string(n)
		}
		switch s.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			if s.Nlink > 1 {
				o.still.addFile(fd, n)
			}
		case unix.S_IFLNK, unix.S_IFIFO, unix.S_IFDIR:
		case unix.S_IFSOCK:
			return found{item: scanned{rel: r}, why: "a socket: only the process serving it can make it again"}, nil
		default:
			return found{item: scanned{rel: r}, why: "a device node: not contents"}, nil
		}
		return found{item: scannedOf(r, s), keep: true}, nil
	}
	add := func(f *found) {
		switch {
		case f.why != "":
			skipped = append(skipped, NotKept{Path: f.item.rel, Why: f.why})
		case f.keep:
			if f.item.id.Mode&unix.S_IFMT == unix.S_IFDIR {
				subdirs = append(subdirs, f.item.rel)
			}
			all = append(all, f.item)
		}
	}
	err = statEntries(fd, grow, take, add)
	if lf := (lstatFailed{}); errors.As(err, &lf) {
		return nil, nil, lf.err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read folder %s: %w", folderPath(root, rel), err)
	}
	if cmp := func(a, b scanned) int { return strings.Compare(a.rel, b.rel) }; !slices.IsSortedFunc(all, cmp) {
		slices.SortFunc(all, cmp) // a folder written in name order is listed sorted on tmpfs
	}
	*list = all
	return subdirs, skipped, nil
}

// dirNames reads the names in the open folder fd (getdents).
func dirNames(fd int) ([]string, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var names []string
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// pathLess orders paths so that a folder comes right before its contents:
// "." first, then component by component. Either path may be a string or
// bytes still encoded (the index's).
func pathLess[A, B ~string | ~[]byte](a A, b B) bool {
	aDot, bDot := len(a) == 1 && a[0] == '.', len(b) == 1 && b[0] == '.'
	if aDot || bDot {
		return aDot && !bDot
	}
	return componentLess(a, b)
}

// componentLess is pathLess for paths other than ".", or for what follows
// a prefix two paths share.
func componentLess[A, B ~string | ~[]byte](a A, b B) bool {
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
