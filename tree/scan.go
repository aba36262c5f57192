package tree

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// Scanned is one path found by scan, with the identity and the rest of
// the metadata from its lstat, kept small: a save holds one per path.
type Scanned struct {
	Rel       string
	Id        Ident
	atimeSec  int64
	mtimeSec  int64 // with id.MTime, the modification time (see mtime)
	Blocks    int64 // 512-byte blocks allocated
	atimeNsec uint32
	uid, gid  uint32
	// HardLink, for a file with other links, is 1 + the place in the scan
	// of the first of them, if not this one (scanAll's linkGroups); until
	// then -1 marks a file with other links.
	HardLink int32
}

// Sparse reports whether the file holds fewer blocks than bytes.
func (s *Scanned) Sparse() bool { return s.Blocks*512 < s.Id.Size }

// atime is the access time.
func (s *Scanned) atime() unix.Timespec {
	return unix.Timespec{Sec: s.atimeSec, Nsec: int64(s.atimeNsec)}
}

// mtime is the modification time: its seconds, and its nanoseconds from
// id.MTime (seconds and nanoseconds in one int64, wrapping past 2262: the
// difference is exact either way).
func (s *Scanned) mtime() unix.Timespec {
	return unix.Timespec{Sec: s.mtimeSec, Nsec: s.Id.MTime - s.mtimeSec*1e9}
}

func scannedOf(rel string, st *unix.Stat_t) Scanned {
	a, m := StatAtime(st), StatMtime(st)
	s := Scanned{Rel: rel, Id: IdentOf(st), atimeSec: int64(a.Sec), atimeNsec: uint32(a.Nsec), mtimeSec: int64(m.Sec),
		uid: st.Uid, gid: st.Gid, Blocks: int64(st.Blocks)}
	if st.Nlink > 1 && st.Mode&unix.S_IFMT == unix.S_IFREG {
		s.HardLink = -1
	}
	return s
}

// NotKept names a path a save could not keep, or something of it a
// restore could not set, and why.
type NotKept struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// IsReserved reports whether name at the root of the folder held by fd
// (lstat st) is not contents: the marker, RAMBar's own scratch folders
// (ramdisk.IsScratch: the benchmark's files), its folder of app caches
// (ramdisk.FallbackLink: `cache on` puts them there; they are never saved,
// so never restored or written back into a mirrored folder), or a folder
// the file system itself made and the user left empty (reservedName;
// keepLF, when set, says whether the saved tree holds a lost+found of the
// user's: then it is kept even empty).
func IsReserved(fd int, name string, st *unix.Stat_t, keepLF func() bool) bool {
	return NeverContents(name) || name == ramdisk.FallbackLink || reservedName(fd, name, st, keepLF)
}

// NeverContents reports whether name at the top of a disk is RAMBar's own
// on every disk: the marker and the scratch folders. The rest of what
// IsReserved leaves out depends on the disk (a Mirror disk's Caches
// folder is contents) or on what the path is.
func NeverContents(name string) bool { return name == MarkerName || ramdisk.IsScratch(name) }

// ReservedIn returns isReserved for the names at the root of dir.
func ReservedIn(dir string) func(name string) bool {
	names := map[string]bool{MarkerName: true}
	if fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
		all, _ := DirNames(fd)
		for _, n := range all {
			var st unix.Stat_t
			if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && IsReserved(fd, n, &st, nil) {
				names[n] = true
			}
		}
		unix.Close(fd)
	}
	return func(name string) bool { return names[name] }
}

// HasContents reports whether folder dir (a disk's top) holds anything
// that is contents: a name IsReserved does not leave out. It reads names
// only until the first such one, so a folder of 100,000 files costs one
// batch of names and a stat or two, not a stat of each.
func HasContents(dir string) (bool, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", dir, err)
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	for {
		names, err := f.Readdirnames(256)
		for _, n := range names {
			var st unix.Stat_t
			if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && !IsReserved(fd, n, &st, nil) {
				return true, nil
			}
		}
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("read %s: %w", dir, err)
		}
	}
}

// Scan walks root and returns every entry (root first, then parents before
// children, sorted by path), reading directories with a few goroutines.
func Scan(root string) ([]Scanned, error) {
	items, _, err := scanAll(root, 0)
	return items, err
}

// scanAll is scan that also names the sockets and device nodes it skipped;
// hint is about how many paths to expect (the index's count: the slice is
// then made once, at its size). It is the whole disk, as a reclaim copies
// it: RAMBar's Caches folder included (a save's scan, snapshot.ScanMatching, leaves
// it out).
func scanAll(root string, hint int) ([]Scanned, []NotKept, error) {
	return ScanWith(root, hint, nil, Opts{Caches: true})
}

// ScanWith scans root, feeding each path to m (nil: none), and keeps them
// all (in scan order, hard links grouped).
func ScanWith(root string, hint int, m Matcher, o Opts) ([]Scanned, []NotKept, error) {
	var st unix.Stat_t
	if err := unix.Lstat(root, &st); err != nil {
		return nil, nil, fmt.Errorf("lstat %s: %w", root, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil, nil, fmt.Errorf("%s is not a folder", root)
	}
	out := prefault(make([]Scanned, 0, max(hint+hint/16, 64)))
	out, notKept, err := readTree(root, ".", append(out, scannedOf(".", &st)), m, o)
	if err != nil {
		return nil, nil, err
	}
	linkGroups(out)
	sortNotKept(notKept)
	return out, notKept, nil
}

// sortNotKept sorts skipped paths by path.
func sortNotKept(n []NotKept) {
	slices.SortFunc(n, func(a, b NotKept) int { return strings.Compare(a.Path, b.Path) })
}

// InodesUsed is how many inodes the file system holding root uses (at most
// 4 million), or 0 if it cannot tell: for the root of a RAM disk, about
// how many paths a scan will find.
func InodesUsed(root string) int {
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
func prefault(s []Scanned) []Scanned {
	all := s[:cap(s)]
	if len(all) > 0 && populate(unsafe.Slice((*byte)(unsafe.Pointer(&all[0])), len(all)*int(unsafe.Sizeof(Scanned{})))) {
		return s
	}
	step := max(4096/int(unsafe.Sizeof(Scanned{})), 1)
	for i := 0; i < len(all); i += step {
		all[i].Blocks = 0 // not a pointer: no write barrier reads the page first
	}
	return s
}

// linkGroups marks every regular file with other links to its inode as a
// hard link to the first of them in scan order.
func linkGroups(items []Scanned) {
	first := map[uint64]int32{}
	for i := range items {
		it := &items[i]
		if it.HardLink != -1 {
			continue
		}
		if p, ok := first[it.Id.Ino]; ok {
			it.HardLink = p + 1
		} else {
			first[it.Id.Ino], it.HardLink = int32(i), 0
		}
	}
}

// HardLinkOf is the path of the file items[i] is a second link to, "" if
// none.
func HardLinkOf(items []Scanned, i int) string {
	if l := items[i].HardLink; l > 0 {
		return items[l-1].Rel
	}
	return ""
}

// found is one entry of a folder as readDir takes it: kept (a subfolder
// when item is a folder), skipped and named (why), or left out.
type found struct {
	item Scanned
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
// skipped, as is a mount point (never entered). A folder removed or
// replaced since its parent was read holds nothing (a symlink in its place
// or on the way is never followed: openFolder): the disk is in use, and a
// save looks again (settle.go). What is not contents at the top is left
// out as o says.
func readDir(top int, root, rel string, list *[]Scanned, o Opts) (subdirs []string, skipped []NotKept, err error) {
	subdirs, skipped, err = readDirOf(top, root, rel, list, o, nil)
	if errors.Is(err, errVanished) {
		return nil, nil, nil
	}
	return subdirs, skipped, err
}

// statEach gives take each of names in folder fd with its lstat (or the
// error: errMountRoot for a mount's root, lstatEntry), in order, and add
// what it takes; "", "." , ".." and names with a "/" are no entries and
// left out.
func statEach(fd int, names []string, take func(name []byte, st *unix.Stat_t, err error) (found, error), add func(*found)) error {
	for _, n := range names {
		if n == "" || n == "." || n == ".." || strings.ContainsRune(n, '/') {
			continue
		}
		var st unix.Stat_t
		err := lstatEntry(fd, n, &st)
		f, err := take([]byte(n), &st, err)
		if err != nil {
			return err
		}
		add(&f)
	}
	return nil
}

// DirNames reads the names in the open folder fd (getdents).
func DirNames(fd int) ([]string, error) {
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

// PathLess orders paths so that a folder comes right before its contents:
// "." first, then component by component. Either path may be a string or
// bytes still encoded (the index's).
func PathLess[A, B ~string | ~[]byte](a A, b B) bool {
	aDot, bDot := len(a) == 1 && a[0] == '.', len(b) == 1 && b[0] == '.'
	if aDot || bDot {
		return aDot && !bDot
	}
	return ComponentLess(a, b)
}

// ComponentLess is pathLess for paths other than ".", or for what follows
// a prefix two paths share.
func ComponentLess[A, B ~string | ~[]byte](a A, b B) bool {
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

// CmpPath orders paths as PathLess does, for slices.SortFunc.
func CmpPath(a, b string) int {
	switch {
	case a == b:
		return 0
	case PathLess(a, b):
		return -1
	}
	return 1
}
