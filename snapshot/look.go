package snapshot

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// A save's look at the disk after its scan (settle.go) checks that every
// path the scan found is still there as it found it. It needs no listing:
// a folder whose identity (its change and modification times) is the same
// holds the same names, so each path is stat'ed by name, relative to its
// folder's descriptor: a statx per path, and no getdents, sorting or path
// strings. The top folder's times also move for what is not contents (the
// marker, RAMBar's scratch and Caches folders), so its names are listed
// and compared instead.

// lookAt looks at the disk at root again and returns the paths of items
// (a scan of it, in scan order) that are no longer as it found them (at
// most named), and whether more than files' contents changed: a path gone
// or added, a folder changed. It stops early once stop is set.
func lookAt(root string, items []tree.Scanned, most int, caches bool, stop *atomic.Bool) (*snapstore.PathList, bool, error) {
	l, err := newLooker(root, items, most, caches, stop)
	if err != nil {
		return nil, false, err
	}
	defer unix.Close(l.top)
	if err := l.topNames(root); err != nil {
		return nil, false, err
	}
	parts := splitTree(items, min(max(runtime.GOMAXPROCS(0), 2), 8))
	var wg sync.WaitGroup
	errs := make([]error, len(parts))
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.walk(p[0], p[1])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, false, err
	}
	return l.diffs, l.moved.Load(), nil
}

// newLooker starts a look at the disk at root (the caller closes its top),
// counted in Looks.
func newLooker(root string, items []tree.Scanned, most int, caches bool, stop *atomic.Bool) (*looker, error) {
	Looks.Add(1)
	top, err := tree.OpenRetry(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("look at %s: %w", root, err)
	}
	return &looker{top: top, items: items, diffs: &snapstore.PathList{Max: most}, stop: stop, caches: caches}, nil
}

// Looks counts the looks made, so tests can tell when a save's still
// watch answered instead (still_linux.go).
var Looks atomic.Int64

// errStopped is a look stopped before its end (its stop set).
var errStopped = errors.New("look stopped")

// looker is one look: what it compares, what it found.
type looker struct {
	caches bool // a Caches folder at the top is contents (store.caches)
	top    int
	items  []tree.Scanned
	stop   *atomic.Bool
	mu     sync.Mutex
	diffs  *snapstore.PathList
	moved  atomic.Bool
}

// differ records path p as changed; moved when more than its contents.
func (l *looker) differ(p string, moved bool) {
	l.mu.Lock()
	l.diffs.Add(p)
	l.mu.Unlock()
	if moved {
		l.moved.Store(true)
	}
}

// topNames compares the names at the top folder with the scan's.
func (l *looker) topNames(root string) error {
	fd, err := tree.OpenAtRetry(l.top, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("look at %s: %w", root, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("look at %s: %w", root, err)
	}
	if now := tree.IdentOf(&st); len(l.items) == 0 || !tree.SameIdent(".", now, l.items[0].Id) {
		l.differ(".", true)
		return nil
	}
	names, err := tree.DirNames(fd)
	if err != nil {
		return fmt.Errorf("look at %s: %w", root, err)
	}
	var now, then []string
	for i := 1; i < len(l.items); i++ {
		if r := l.items[i].Rel; !strings.Contains(r, "/") {
			then = append(then, r)
		}
	}
	keepLF := func() bool { return slices.Contains(then, "lost+found") }
	for _, n := range names {
		var st unix.Stat_t
		if n == "." || n == ".." {
			continue
		}
		if err := unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || tree.KindOf(uint32(st.Mode)) != 0 && (!tree.IsReserved(fd, n, &st, keepLF) || l.caches && n == ramdisk.FallbackLink) {
			now = append(now, n) // gone meanwhile, or contents (not a socket or device, as the scan skips)
		}
	}
	slices.Sort(now)
	slices.Sort(then)
	if !slices.Equal(now, then) {
		l.differ(".", true)
	}
	return nil
}

// splitTree cuts items (after the top folder) into about n ranges
// [lo, hi) that each start at a path of the top folder, so that each is
// a run of whole subtrees.
func splitTree(items []tree.Scanned, n int) [][2]int {
	var parts [][2]int
	lo, want := 1, max((len(items)-1)/n, 1)
	for i := 1; i <= len(items); i++ {
		if i == len(items) || i-lo >= want && !strings.Contains(items[i].Rel, "/") {
			if i > lo {
				parts = append(parts, [2]int{lo, i})
			}
			lo = i
		}
	}
	return parts
}

// walk stats items[lo:hi] (whole subtrees of the top folder), each by name
// in its folder, opening each folder on the way.
func (l *looker) walk(lo, hi int) error {
	type open struct {
		rel string
		fd  int
	}
	stack := []open{{".", l.top}}
	defer func() {
		for _, o := range stack[1:] {
			unix.Close(o.fd)
		}
	}()
	for i := lo; i < hi; i++ {
		if l.stop != nil && l.stop.Load() {
			return errStopped
		}
		it := &l.items[i]
		parent, name := ".", it.Rel
		if j := strings.LastIndexByte(it.Rel, '/'); j >= 0 {
			parent, name = it.Rel[:j], it.Rel[j+1:]
		}
		for top := stack[len(stack)-1].rel; len(stack) > 1 && parent != top && !strings.HasPrefix(parent, top+"/"); top = stack[len(stack)-1].rel {
			unix.Close(stack[len(stack)-1].fd)
			stack = stack[:len(stack)-1]
		}
		if stack[len(stack)-1].rel != parent {
			continue // a folder on its way changed or went: named already
		}
		var st unix.Stat_t
		err := unix.Fstatat(stack[len(stack)-1].fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		now := tree.IdentOf(&st)
		dir := now.Mode&unix.S_IFMT == unix.S_IFDIR
		switch {
		case err != nil || now.Mode&unix.S_IFMT != it.Id.Mode&unix.S_IFMT:
			l.differ(it.Rel, true)
			continue
		case now != it.Id:
			l.differ(it.Rel, dir)
			if dir {
				continue // its listing may have changed: its contents are not looked at
			}
		}
		if dir {
			fd, err := tree.OpenAtRetry(stack[len(stack)-1].fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				l.differ(it.Rel, true)
				continue
			}
			stack = append(stack, open{it.Rel, fd})
		}
	}
	return nil
}
