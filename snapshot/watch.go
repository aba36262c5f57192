package snapshot

import (
	"crypto/sha256"
	"errors"
	"sync"

	"rambar/snapstore"
	"rambar/tree"

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
	old    map[string]snapstore.ContentSum

	mu  sync.Mutex
	now map[string]snapstore.ContentSum
}

// newWatch is the watch of a save: mapped now, old from the index.
func newWatch(mapped map[uint64]bool, old map[string]snapstore.ContentSum) *watch {
	return &watch{mapped: mapped, old: old, now: map[string]snapstore.ContentSum{}}
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
func (w *watch) sum(rel string) (snapstore.ContentSum, bool) {
	if w == nil {
		return snapstore.ContentSum{}, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.now[rel]
	return s, ok
}

// set records sum as watched file rel's contents this round.
func (w *watch) set(rel string, sum snapstore.ContentSum) {
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
	w.now = map[string]snapstore.ContentSum{}
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
func (w *watch) record(items []tree.Scanned) map[string]snapstore.ContentSum {
	if w == nil || len(w.mapped) == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]snapstore.ContentSum{}
	for i := range items {
		if it := &items[i]; tree.KindOf(it.Id.Mode) == tree.KindFile && w.mapped[it.Id.Ino] {
			if s, ok := w.now[it.Rel]; ok {
				out[it.Rel] = s
			}
		}
	}
	return out
}

// ChangedSince reports whether the disk at root changed since the save or
// restore idx describes: a path added, removed or changed by identity,
// or a file mapped shared and writable now, or watched at that save, whose
// contents differ (or were never summed).
func ChangedSince(root string, idx *snapstore.Index, caches bool) (bool, error) {
	mapped := make(chan map[uint64]bool, 1)
	go func() { mapped <- mappedFiles(root) }()
	items, _, m, err := scanAgainst(root, idx.N, idx, caches, nil, nil)
	w := newWatch(<-mapped, nil)
	dropWALIndexes(root, items, w.mapped)
	if err != nil || !m.Matched(len(items)) {
		return err == nil, err
	}
	w.old = m.Watched
	changed, err := w.changed(root, items)
	return len(changed) > 0, err
}

// errGone is a path a save looked for that is no longer there as it was
// scanned (removed, or replaced by another kind of file).
var errGone = errors.New("gone from the disk")

// sumFile sums the regular file rel under t, read through a descriptor,
// and returns its identity as it was read; errGone when it is no longer a
// regular file there.
func sumFile(t *tree.DirTree, rel string) (snapstore.ContentSum, tree.Ident, error) {
	fd, err := openToRead(t, rel)
	if isGone(err) {
		return snapstore.ContentSum{}, tree.Ident{}, errGone
	}
	if err != nil {
		return snapstore.ContentSum{}, tree.Ident{}, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return snapstore.ContentSum{}, tree.Ident{}, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return snapstore.ContentSum{}, tree.Ident{}, errGone
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
func sumFD(fd int) (snapstore.ContentSum, error) {
	bp := tree.CopyBufs.Get().(*[]byte)
	defer tree.CopyBufs.Put(bp)
	h := sha256.New()
	for off := int64(0); ; {
		n, err := tree.PreadFull(fd, *bp, off)
		if err != nil {
			return snapstore.ContentSum{}, err
		}
		h.Write((*bp)[:n])
		if n < len(*bp) {
			break
		}
		off += int64(n)
	}
	var s snapstore.ContentSum
	h.Sum(s[:0])
	return s, nil
}
