package mirror

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

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
// (ramdisk.IsScratch: the benchmark's files), or a folder the file system
// itself made (reservedName).
func isReserved(fd int, name string, st *unix.Stat_t) bool {
	return name == MarkerName || ramdisk.IsScratch(name) || reservedName(fd, name, st)
}

// reservedIn returns isReserved for the names at the root of dir.
func reservedIn(dir string) func(name string) bool {
	names := map[string]bool{MarkerName: true}
	if fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
		all, _ := dirNames(fd)
		for _, n := range all {
			var st unix.Stat_t
			if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && isReserved(fd, n, &st) {
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
	items, _, err := scanAll(root)
	return items, err
}

// scanAll is scan that also names the sockets and device nodes it skipped.
func scanAll(root string) ([]scanned, []NotKept, error) {
	var st unix.Stat_t
	if err := unix.Lstat(root, &st); err != nil {
		return nil, nil, fmt.Errorf("lstat %s: %w", root, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil, nil, fmt.Errorf("%s is not a folder", root)
	}
	byDir, notKept, err := readTree(root)
	if err != nil {
		return nil, nil, err
	}
	// Depth first, siblings sorted: exactly pathLess order.
	n := 1
	for _, l := range byDir {
		n += len(l)
	}
	out := make([]scanned, 0, n)
	out = append(out, scannedOf(".", &st))
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
	linkGroups(out)
	slices.SortFunc(notKept, func(a, b NotKept) int { return strings.Compare(a.Path, b.Path) })
	return out, notKept, nil
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

// readTree lists every folder under root, a goroutine per folder with at
// most 8 reading at once: the entries of each folder by its path, sorted.
func readTree(root string) (map[string][]scanned, []NotKept, error) {
	var (
		mu      sync.Mutex
		byDir   = map[string][]scanned{}
		notKept []NotKept
		errs    []error
		wg      sync.WaitGroup
		sem     = make(chan struct{}, 8)
		visit   func(rel string)
	)
	visit = func(rel string) {
		defer wg.Done()
		sem <- struct{}{}
		local, subdirs, skipped, err := readDir(filepath.Join(root, filepath.FromSlash(rel)), rel)
		<-sem
		if err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
			return
		}
		slices.SortFunc(local, func(a, b scanned) int { return strings.Compare(a.rel, b.rel) })
		mu.Lock()
		byDir[rel] = local
		notKept = append(notKept, skipped...)
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
		return nil, nil, errors.Join(errs...)
	}
	return byDir, notKept, nil
}

// direntBufs are getdents buffers, reused: a scan reads thousands of folders.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readDir lists one folder and lstats its entries relative to the folder's
// descriptor (no path walk per entry, no poller registration as os.Open
// does), keeping files, folders, symlinks and FIFOs; sockets and device
// nodes are named in skipped.
func readDir(dir, rel string) (local []scanned, subdirs []string, skipped []NotKept, err error) {
	fd, err := openNoAtime(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read folder %s: %w", dir, err)
	}
	defer unix.Close(fd)
	names, err := dirNames(fd)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read folder %s: %w", dir, err)
	}
	local = make([]scanned, 0, len(names))
	for _, n := range names {
		r := n
		if rel != "." {
			r = rel + "/" + n
		}
		var s unix.Stat_t
		if err := unix.Fstatat(fd, n, &s, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // deleted while we looked: not part of this save
			}
			return nil, nil, nil, fmt.Errorf("lstat %s: %w", filepath.Join(dir, n), err)
		}
		if rel == "." && isReserved(fd, n, &s) {
			continue
		}
		switch s.Mode & unix.S_IFMT {
		case unix.S_IFREG, unix.S_IFLNK, unix.S_IFIFO:
		case unix.S_IFDIR:
			subdirs = append(subdirs, r)
		case unix.S_IFSOCK:
			skipped = append(skipped, NotKept{Path: r, Why: "a socket: only the process serving it can make it again"})
			continue
		default:
			skipped = append(skipped, NotKept{Path: r, Why: "a device node: not contents"})
			continue
		}
		local = append(local, scannedOf(r, &s))
	}
	return local, subdirs, skipped, nil
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
