package tree

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// readTree appends every path under folder start of root to out in
// pathLess order (depth first, siblings sorted) and returns it. A few workers (one per core, at
// least two, at most eight: a scan is system calls, and more workers than
// cores only add switches) read the folders, always the first one in that
// order still to read; after each folder, the worker appends whatever is
// now next in order (one at a time: the appender). The workers stay just
// ahead of the appending, so only a few folders' entries are held besides
// out, never a second copy of the tree, and no goroutine sleeps waiting
// for a folder while there is reading to do. A match, when not nil, is fed
// every path in order as it is appended (out's first ones included).
func readTree(root, start string, out []Scanned, match Matcher, o Opts) ([]Scanned, []NotKept, error) {
	q := &dirQueue{todo: []string{start}, read: map[string]dirRead{}}
	q.work = sync.NewCond(&q.mu)
	a := &appender{out: out, want: start, match: match}
	// Folders are opened relative to the top one, so each open walks the
	// path inside the disk only, not the mount point's path too.
	top, err := OpenRetry(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("read folder %s: %w", root, err)
	}
	defer unix.Close(top)
	var st unix.Stat_t
	if err := unix.Fstat(top, &st); err != nil {
		return nil, nil, fmt.Errorf("read folder %s: fstat: %w", root, err)
	}
	o.dev, o.hasDev = uint64(st.Dev), true // a folder of another device is a mount point: never entered
	if match != nil {
		for i := range out {
			match.See(&out[i])
		}
	}
	var wg sync.WaitGroup
	for range min(max(runtime.GOMAXPROCS(0), 2), 8) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rel, ok := q.next(); ok; rel, ok = q.next() {
				r := dirRead{buf: q.buffer()}
				var subdirs []string
				subdirs, r.skipped, r.err = readDir(top, root, rel, r.buf, o)
				q.done(rel, r, subdirs)
				a.poke(q)
			}
		}()
	}
	wg.Wait()
	if len(a.errs) > 0 {
		return nil, nil, errors.Join(a.errs...)
	}
	return a.out, a.notKept, nil
}

// Matcher is fed each path of a scan as it is appended, in scan order (a
// save compares them with its index as they come).
type Matcher interface {
	See(it *Scanned)
}

// Opts tune readTree: keepLF as for isReserved; with caches, RAMBar's
// Caches folder at the top is kept (a copy of the whole disk: a reclaim);
// still, when not nil, is given every folder as it is opened (and every
// file of several names), so a save can tell later whether the disk held
// still since (still_linux.go); so is feed, the disk's change feed
// (package changefeed), which follows each folder from then on.
type Opts struct {
	KeepLF func() bool
	Caches bool
	Still  *StillWatch
	Feed   FolderWatch
	// Into, for Rescan, is room its Items may take (what it holds is
	// overwritten): an earlier scan no longer used. Firsts, for Rescan,
	// are the Firsts of the rescan that made prev (nil: unknown, found).
	Into   []Scanned
	Firsts map[int32]bool
	// dev, when hasDev, is the device of the disk's top (readTree reads
	// it once): a folder of another is a mount point (topDev).
	dev    uint64
	hasDev bool
}

// FolderWatch is given each folder a scan opens, before its names are
// read (a change feed that watches folder by folder).
type FolderWatch interface {
	Watch(dir int, rel string)
}

// dirRead is one folder as a worker read it: its entries in buf, given
// back (dirQueue.release) once they are appended.
type dirRead struct {
	buf     *[]Scanned
	skipped []NotKept
	err     error
}

// dirQueue is readTree's work: folders still to read (todo, a heap in
// pathLess order) and folders read but not yet appended.
type dirQueue struct {
	mu      sync.Mutex
	work    *sync.Cond // a folder was queued, or the scan stopped
	todo    []string
	read    map[string]dirRead
	free    []*[]Scanned // lists appended already, for the next folders
	idle    int          // workers waiting for work
	stopped bool
}

// buffer is a list for a worker to fill: a used one when there is one.
func (q *dirQueue) buffer() *[]Scanned {
	q.mu.Lock()
	defer q.mu.Unlock()
	if n := len(q.free); n > 0 {
		b := q.free[n-1]
		q.free = q.free[:n-1]
		return b
	}
	return new([]Scanned)
}

// release gives back a list whose entries are appended.
func (q *dirQueue) release(b *[]Scanned) {
	q.mu.Lock()
	q.free = append(q.free, b)
	q.mu.Unlock()
}

// next takes the first folder still to read; false once stopped.
func (q *dirQueue) next() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.todo) == 0 && !q.stopped {
		q.idle++
		q.work.Wait()
		q.idle--
	}
	if q.stopped {
		return "", false
	}
	return heapPop(&q.todo), true
}

// done records folder rel as read and queues its subfolders, waking a
// worker for each (up to those waiting).
func (q *dirQueue) done(rel string, r dirRead, subdirs []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.read[rel] = r
	for _, d := range subdirs {
		heapPush(&q.todo, d)
	}
	for range min(len(subdirs), q.idle) {
		q.work.Signal()
	}
}

// take hands over folder rel if it is read.
func (q *dirQueue) take(rel string) (dirRead, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	r, ok := q.read[rel]
	if ok {
		delete(q.read, rel)
	}
	return r, ok
}

// stop ends the workers: every folder has been appended.
func (q *dirQueue) stop() {
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
	q.work.Broadcast()
}

// appender appends the folders' entries to out in order, as far as the
// folders read allow, run by whichever worker pokes it (one at a time).
type appender struct {
	mu      sync.Mutex
	more    atomic.Bool // a poke not yet acted on
	out     []Scanned
	stack   []appendFrame // the folders being appended, outermost first
	want    string        // the folder whose entries come next, "" if none
	match   Matcher       // fed each path appended, if not nil
	notKept []NotKept
	errs    []error
}

// appendFrame is a folder being appended: its entries and how many are
// appended.
type appendFrame struct {
	buf *[]Scanned
	i   int
}

// poke appends what it can. A poke while another worker appends is not
// lost: that worker sees more set and goes on once it is done.
func (a *appender) poke(q *dirQueue) {
	a.more.Store(true)
	for a.more.Load() && a.mu.TryLock() {
		for a.more.Swap(false) {
			a.advance(q)
		}
		a.mu.Unlock()
	}
}

// advance appends entries until the next folder in order is not read yet,
// or everything is appended (then it stops the workers).
func (a *appender) advance(q *dirQueue) {
	for {
		if a.want != "" {
			r, ok := q.take(a.want)
			if !ok {
				return
			}
			a.want = ""
			if r.err != nil {
				a.errs = append(a.errs, r.err)
				q.release(r.buf)
			} else {
				a.notKept = append(a.notKept, r.skipped...)
				a.stack = append(a.stack, appendFrame{buf: r.buf})
			}
		}
		if len(a.stack) == 0 {
			q.stop()
			return
		}
		f := &a.stack[len(a.stack)-1]
		if f.i == len(*f.buf) {
			q.release(f.buf)
			a.stack = a.stack[:len(a.stack)-1]
			continue
		}
		c := (*f.buf)[f.i]
		f.i++
		a.out = append(a.out, c)
		if a.match != nil {
			a.match.See(&a.out[len(a.out)-1]) // not &c: through the interface, c would escape (an allocation per path)
		}
		if c.Id.Mode&unix.S_IFMT == unix.S_IFDIR {
			a.want = c.Rel
		}
	}
}

// heapPush and heapPop keep h a min-heap in pathLess order.
func heapPush(h *[]string, s string) {
	*h = append(*h, s)
	for i := len(*h) - 1; i > 0; {
		p := (i - 1) / 2
		if !PathLess((*h)[i], (*h)[p]) {
			break
		}
		(*h)[i], (*h)[p] = (*h)[p], (*h)[i]
		i = p
	}
}

func heapPop(h *[]string) string {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(a) && PathLess(a[l], a[m]) {
			m = l
		}
		if r < len(a) && PathLess(a[r], a[m]) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}
