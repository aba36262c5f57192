package mirror

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

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
	byDir, err := readTree(root)
	if err != nil {
		return nil, err
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

// readTree lists every folder under root, a goroutine per folder with at
// most 8 reading at once: the entries of each folder by its path, sorted.
func readTree(root string) (map[string][]scanned, error) {
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
		local, subdirs, err := readDir(filepath.Join(root, filepath.FromSlash(rel)), rel)
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
	return byDir, nil
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
	names, err := dirNames(fd)
	if err != nil {
		return nil, nil, fmt.Errorf("read folder %s: %w", dir, err)
	}
	local = make([]scanned, 0, len(names))
	for _, n := range names {
		if rel == "." && skipAtRoot[n] {
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
