package tree

import (
	"sync"

	"golang.org/x/sys/unix"
)

// Idents are the identities a restore leaves its paths with, noted as each
// path's metadata is set (its last change: times go last, folders after
// everything in them), so the index of a restored disk needs no scan of
// it afterwards. A path noted wrongly or not at all only costs work: its
// identity then differs from the disk's, and the next save reads it.
type Idents struct {
	mu sync.Mutex
	m  map[string]Ident
}

// NewIdents is an empty set, room made for n paths.
func NewIdents(n int) *Idents { return &Idents{m: make(map[string]Ident, n)} }

// noteFd notes rel's identity from its open descriptor fd.
func (x *Idents) noteFd(rel string, fd int) {
	if x == nil {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil {
		x.set(rel, IdentOf(&st))
	}
}

// noteAt notes the identity of name (not followed) in folder pfd as rel's.
func (x *Idents) noteAt(rel string, pfd int, name string) {
	if x == nil {
		return
	}
	var st unix.Stat_t
	if unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		x.set(rel, IdentOf(&st))
	}
}

// NoteLinked notes rel, just made a hard link to first, in t: the inode's
// ctime moved, so both paths get its identity now (a later link moves it
// again; the next save then reads the file once more).
func (t *DirTree) NoteLinked(rel, first string) {
	if t.Ids == nil {
		return
	}
	pfd, name, done, err := t.Parent(rel)
	if err != nil {
		return
	}
	defer done()
	var st unix.Stat_t
	if unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		id := IdentOf(&st)
		t.Ids.set(rel, id)
		t.Ids.set(first, id)
	}
}

func (x *Idents) set(rel string, id Ident) {
	x.mu.Lock()
	x.m[rel] = id
	x.mu.Unlock()
}

// Of is rel's noted identity; none (zero) if it was not noted.
func (x *Idents) Of(rel string) Ident {
	if x == nil {
		return Ident{}
	}
	return x.m[rel]
}
