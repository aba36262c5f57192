//go:build linux || darwin

package changefeed

import (
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// writersEvery is how often a feed with FSEvents' semantics looks at the
// files open for writing on its disk to wake the saves.
const writersEvery = time.Second

// writers looks at the files open for writing on one disk, for a feed
// with FSEvents' semantics: FSEvents reports a write only when the writer
// closes the file (xnu's vn_close posts FSE_CONTENT_MODIFIED; vn_write
// posts nothing), so a file a program keeps open and writes (a log, a
// database, a VM image) raises no event while it is written. At each Take
// and Peek the folder of every such file is marked changed (a save looks
// at it again); every writersEvery the files are looked at, and a file
// newly open or whose size or times moved since the last of those looks
// wakes the saves. When the open files cannot be known the changes are Lost.
type writers struct {
	p     *pending
	roots []string                               // the disk's root as given and with symlinks resolved
	find  func(roots []string) ([]string, error) // the paths under roots open for writing (openWriters)
	mu    sync.Mutex
	seen  map[string]fileIdent // the open files at the last tick
	stop  chan struct{}
	done  chan struct{}
	// stopOnce closes stop.
	stopOnce sync.Once
	// held are the files written or truncated since the last look (the
	// Linux test mode's IN_MODIFY): those not open for writing then are
	// changes (heldMu guards it: the feed's reader adds to it).
	heldMu sync.Mutex
	held   map[string]heldChange
}

// heldChange is a write or truncate held until the next look.
type heldChange struct {
	folder, name string
	at           time.Time
}

// takeHeld returns the held writes and truncates, and forgets them.
func (w *writers) takeHeld() map[string]heldChange {
	w.heldMu.Lock()
	defer w.heldMu.Unlock()
	h := w.held
	w.held = nil
	return h
}

// fileIdent is what moves when a file is written: its inode, size and
// times.
type fileIdent struct {
	ino, size    int64
	mtime, ctime unix.Timespec
}

// newWriters looks at the files open for writing under root for p, and
// every writersEvery from now until close.
func newWriters(p *pending, root string) *writers {
	root = strings.TrimSuffix(root, "/")
	w := &writers{p: p, roots: []string{root}, find: openWriters, stop: make(chan struct{}), done: make(chan struct{})}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		w.roots = append(w.roots, real)
	}
	go w.tick()
	return w
}

// tick looks at the open files every writersEvery until close.
func (w *writers) tick() {
	defer close(w.done)
	t := time.NewTicker(writersEvery)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.look(byTick)
		}
	}
}

// close stops the looks (once, whoever calls it).
func (w *writers) close() {
	w.stopOnce.Do(func() { close(w.stop) })
	<-w.done
}

// Who looks at the open files (writers.look): what each wakes.
type looker int

const (
	// byTake: the marks are in the changes the take returns; no wake.
	byTake looker = iota
	// byPeek wakes for the held writes and truncates it finds to be
	// changes, not for the open files (every peek would, while a file is
	// written without pause: the saves' wait peeks at each wake).
	byPeek
	// byTick also wakes when an open file is new or moved since the last
	// tick.
	byTick
)

// look marks the folder of every file open for writing on the disk as
// changed, and of every held write or truncate of a file no longer open
// for writing, and wakes the feed as by says.
func (w *writers) look(by looker) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.stop:
		return // the feed is closed
	default:
	}
	found, err := w.find(w.roots)
	if err != nil {
		w.p.lose("could not tell which files are open for writing on the disk: " + err.Error())
		return
	}
	open, moved := make(map[string]fileIdent, len(found)), false
	for _, p := range found {
		folder, name, ok := relUnder(w.roots, p)
		if !ok {
			continue
		}
		at, id := time.Now(), fileIdent{ino: -1}
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil {
			at = time.Unix(st.Mtim.Unix())
			id = fileIdent{ino: int64(st.Ino), size: st.Size, mtime: st.Mtim, ctime: st.Ctim}
		}
		key := folder + "/" + name
		if _, dup := open[key]; dup {
			continue // open in several places
		}
		open[key] = id
		marked := w.p.mark(folder, name, at)
		if was, ok := w.seen[key]; marked && (!ok || was != id) {
			moved = true
		}
	}
	if by == byTick {
		w.seen = open
	} else {
		moved = false
	}
	for key, h := range w.takeHeld() {
		if _, isOpen := open[key]; !isOpen && w.p.mark(h.folder, h.name, h.at) {
			moved = true
		}
	}
	if moved && by != byTake {
		w.p.poke()
	}
}
