package mirror

import (
	"crypto/sha256"
	"errors"
	"rambar/tree"
	"sync"

	"golang.org/x/sys/unix"
)

// watch is what a save compares by content, not by identity (mapped.go
// says why): the files a process maps shared and writable now (mapped,
// by inode), and those the index names as watched (old: their sums at the
// last save). A file stays watched from a save that sees it mapped until
// a save compares its contents after the mapping is gone, so the save
// before an eject, when the apps have closed, still compares what they
// wrote through their mappings since the save before. Each round of a
// save sums each watched file once (now).
type watch struct {
	mapped map[uint64]bool
	old    map[string]contentSum

	mu  sync.Mutex
	now map[string]contentSum
}

// newWatch is the watch of a save: mapped now, old from the index.
func newWatch(mapped map[uint64]bool, old map[string]contentSum) *watch {
	return &watch{mapped: mapped, old: old, now: map[string]contentSum{}}
}

// any reports whether anything may be watched.
func (w *watch) any() bool { return w != nil && (len(w.mapped) > 0 || len(w.old) > 0) }

// wants reports whether scanned path it is compared by content.
func (w *watch) wants(it *tree.Scanned) bool {
	if !w.any() || tree.KindOf(it.Id.Mode) != tree.KindFile {
		return false
	}
	_, was := w.old[it.Rel]
	return w.mapped[it.Id.Ino] || was
}

// sum is the sum this round took of watched file rel; ok is false when
// rel is not watched.
func (w *watch) sum(rel string) (contentSum, bool) {
	if w == nil {
		return contentSum{}, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.now[rel]
	return s, ok
}

// set records sum as watched file rel's contents this round.
func (w *watch) set(rel string, sum contentSum) {
	w.mu.Lock()
	w.now[rel] = sum
	w.mu.Unlock()
}

// changed sums the watched files of items (a new round: the sums of the
// last are dropped) and returns those whose contents differ from the last
// save's, or that it had no sum of, by place in items. A file gone or
// replaced meanwhile is changed.
func (w *watch) changed(root string, items []tree.Scanned) ([]int, error) {
	if !w.any() {
		return nil, nil
	}
	w.mu.Lock()
	w.now = map[string]contentSum{}
	w.mu.Unlock()
	t, err := tree.OpenTree(root)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	var out []int
	for i := range items {
		it := &items[i]
		if !w.wants(it) {
			continue
		}
		sum, id, err := sumFile(t, it.Rel)
		if errors.Is(err, errGone) {
			out = append(out, i)
			continue
		}
		if err != nil {
			return nil, err
		}
		w.set(it.Rel, sum) // a version changed since the scan is copied as moved, checked by this sum
		if old, ok := w.old[it.Rel]; !ok || old != sum || id != it.Id {
			out = append(out, i)
		}
	}
	return out, nil
}

// record is what the index keeps of the watch for items: the sums of the
// files mapped now (those only watched before were compared this save).
func (w *watch) record(items []tree.Scanned) map[string]contentSum {
	if w == nil || len(w.mapped) == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]contentSum{}
	for i := range items {
		if it := &items[i]; tree.KindOf(it.Id.Mode) == tree.KindFile && w.mapped[it.Id.Ino] {
			if s, ok := w.now[it.Rel]; ok {
				out[it.Rel] = s
			}
		}
	}
	return out
}

// changedSince reports whether the disk at root changed since the save or
// restore idx describes: a path added, removed or changed by identity,
// or a file mapped shared and writable now, or watched at that save, whose
// contents differ (or were never summed).
func changedSince(root string, idx *index, caches bool) (bool, error) {
	mapped := make(chan map[uint64]bool, 1)
	go func() { mapped <- mappedFiles(root) }()
	items, _, m, err := scanAgainst(root, idx.n, idx, caches, nil)
	w := newWatch(<-mapped, nil)
	if err != nil || !m.matched(len(items)) {
		return err == nil, err
	}
	w.old = m.watched
	changed, err := w.changed(root, items)
	return len(changed) > 0, err
}

// errGone is a path a save looked for that is no longer there as it was
// scanned (removed, or replaced by another kind of file).
var errGone = errors.New("gone from the disk")

// sumFile sums the regular file rel under t, read through a descriptor,
// and returns its identity as it was read; errGone when it is no longer a
// regular file there.
func sumFile(t *tree.DirTree, rel string) (contentSum, tree.Ident, error) {
	fd, err := openToRead(t, rel)
	if isGone(err) {
		return contentSum{}, tree.Ident{}, errGone
	}
	if err != nil {
		return contentSum{}, tree.Ident{}, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return contentSum{}, tree.Ident{}, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return contentSum{}, tree.Ident{}, errGone
	}
	sum, err := sumFD(fd)
	return sum, tree.IdentOf(&st), err
}

// isGone reports whether err opening a path says it is not there any more
// as it was: removed, or a folder on its way replaced by a file or a
// symlink.
func isGone(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV)
}

// sumFD is the SHA-256 of the open file fd's contents, read from its start.
func sumFD(fd int) (contentSum, error) {
	bp := tree.CopyBufs.Get().(*[]byte)
	defer tree.CopyBufs.Put(bp)
	h := sha256.New()
	for off := int64(0); ; {
		n, err := tree.PreadFull(fd, *bp, off)
		if err != nil {
			return contentSum{}, err
		}
		h.Write((*bp)[:n])
		if n < len(*bp) {
			break
		}
		off += int64(n)
	}
	var s contentSum
	h.Sum(s[:0])
	return s, nil
}
