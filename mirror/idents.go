package mirror

import (
	"sync"

	"golang.org/x/sys/unix"
)

// idents are the identities a restore leaves its paths with, noted as each
// path's metadata is set (its last change: times go last, folders after
// everything in them), so the index of a restored disk needs no scan of
// it afterwards. A path noted wrongly or not at all only costs work: its
// identity then differs from the disk's, and the next save reads it.
type idents struct {
	mu sync.Mutex
	m  map[string]ident
}

func newIdents(n int) *idents { return &idents{m: make(map[string]ident, n)} }

// noteFd notes rel's identity from its open descriptor fd.
func (x *idents) noteFd(rel string, fd int) {
	if x == nil {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil {
		x.set(rel, identOf(&st))
	}
}

// noteAt notes the identity of name (not followed) in folder pfd as rel's.
func (x *idents) noteAt(rel string, pfd int, name string) {
	if x == nil {
		return
	}
	var st unix.Stat_t
	if unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		x.set(rel, identOf(&st))
	}
}

// noteLinked notes rel, just made a hard link to first, in t: the inode's
// ctime moved, so both paths get its identity now (a later link moves it
// again; the next save then reads the file once more).
func (t *dirTree) noteLinked(rel, first string) {
	if t.ids == nil {
		return
	}
	pfd, name, done, err := t.parent(rel)
	if err != nil {
		return
	}
	defer done()
	var st unix.Stat_t
	if unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		id := identOf(&st)
		t.ids.set(rel, id)
		t.ids.set(first, id)
	}
}

func (x *idents) set(rel string, id ident) {
	x.mu.Lock()
	x.m[rel] = id
	x.mu.Unlock()
}

// of is rel's noted identity; none (zero) if it was not noted.
func (x *idents) of(rel string) ident {
	if x == nil {
		return ident{}
	}
	return x.m[rel]
}
