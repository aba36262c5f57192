package foldersync

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"rambar/snapstore"
	"rambar/syncrec"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// candidate is a path whose disk version may differ from the record's:
// what a write-back looks at in the folder. Every other path is left as
// the folder has it, unread.
type candidate struct {
	path string
	d    *tree.Entry   // the disk's entry in the snapshot; nil: it lacks the path
	src  *tree.Entry   // the entry whose object holds d's content (a hard link's first name)
	rec  *syncrec.Path // the record's entry; nil: none
}

// diskChanges lists, in order, the paths of snapshot id whose disk
// version differs from the record's (or that the record marks pending).
// It reads the two deltas only when the record's snapshot and id are
// deltas on one full manifest (or the record's is that manifest): a path
// neither changed has one version in both. Otherwise (a compaction, no
// record) it compares the whole tree with the whole record.
func diskChanges(s *snapstore.Store, rec *syncrec.Record, id string) ([]candidate, error) {
	if c, ok, err := fastChanges(s, rec, id); ok || err != nil {
		return c, err
	}
	return fullChanges(s, rec, id)
}

// fastChanges is diskChanges from the deltas; ok is false when they
// cannot tell.
func fastChanges(s *snapstore.Store, rec *syncrec.Record, id string) ([]candidate, bool, error) {
	if rec == nil || rec.Base == "" || rec.Snapshot == "" {
		return nil, false, nil
	}
	nm, err := s.ReadFile(id, true, true)
	if err != nil || nm.Base == "" {
		return nil, false, nil
	}
	changed := make(map[string]*tree.Entry, len(nm.Entries)+len(nm.Removed))
	for i := range nm.Entries {
		changed[nm.Entries[i].Path] = &nm.Entries[i]
	}
	for _, p := range nm.Removed {
		changed[p] = nil
	}
	if rec.Snapshot != nm.Base && rec.Snapshot != id {
		// The record's snapshot's changes must all be among id's, or a path
		// changed there and back is id's base's, which is not read here.
		om, err := s.ReadFile(rec.Snapshot, true, true)
		if err != nil || om.Base != nm.Base {
			return nil, false, nil
		}
		for _, e := range om.Entries {
			if _, ok := changed[e.Path]; !ok {
				return nil, false, nil
			}
		}
		for _, p := range om.Removed {
			if _, ok := changed[p]; !ok {
				return nil, false, nil
			}
		}
	}
	paths := slices.Collect(maps.Keys(changed))
	for _, r := range rec.Delta { // the paths the record keeps pending
		if _, ok := changed[r.Path]; ok || !r.Pending {
			continue
		}
		if !r.Gone {
			return nil, false, nil // its disk version is in the base: not read here
		}
		paths = append(paths, r.Path) // still gone: the lacking snapshot's
	}
	slices.SortFunc(paths, tree.CmpPath)
	out := make([]candidate, 0, len(paths))
	for _, p := range paths {
		c := candidate{path: p, d: changed[p]}
		if c.d != nil {
			if c.src = linkSource(c.d, func(q string) *tree.Entry { return changed[q] }); c.src == nil {
				return nil, false, nil // a link to a file the deltas do not hold
			}
		}
		r, err := rec.Get(p)
		if err != nil {
			return nil, false, err
		}
		if c.differs(r) {
			out = append(out, c)
		}
	}
	return out, true, nil
}

// fullChanges is diskChanges from the whole tree and record.
func fullChanges(s *snapstore.Store, rec *syncrec.Record, id string) ([]candidate, error) {
	m, err := s.Manifest(id)
	if err != nil {
		return nil, err
	}
	var out []candidate
	err = syncrec.JoinEach(rec.Each, m.Entries, func(e *tree.Entry) string { return e.Path }, func(e *tree.Entry, r *syncrec.Path) error {
		c := candidate{d: e}
		if e != nil {
			c.path, c.src = e.Path, sourceIn(m.Entries, e)
		} else {
			c.path = r.Path
		}
		if c.differs(r) {
			out = append(out, c)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the mirror record: %w", err)
	}
	return out, nil
}

// differs reports whether c's disk version differs from the record's r (or
// r is pending), and keeps a copy of r in c when it does.
func (c *candidate) differs(r *syncrec.Path) bool {
	var d *syncrec.Side
	if c.d != nil {
		d = syncrec.DiskSide(c.d, c.src)
	}
	if r == nil {
		return true
	}
	if !r.Pending && r.D.SameDisk(d) {
		return false
	}
	cp := *r
	c.rec = &cp
	return true
}

// linkSource is the entry whose object holds e's content: e itself, or
// for a hard link its first name (found with find); nil when find has not
// got it.
func linkSource(e *tree.Entry, find func(string) *tree.Entry) *tree.Entry {
	if e.Kind != tree.KindFile || e.HardLink == "" {
		return e
	}
	if t := find(e.HardLink); t != nil && t.Kind == tree.KindFile && t.HardLink == "" {
		return t
	}
	return nil
}

// sourceIn is linkSource with the first name looked up in entries (sorted).
func sourceIn(entries []tree.Entry, e *tree.Entry) *tree.Entry {
	return linkSource(e, func(q string) *tree.Entry {
		if i, ok := slices.BinarySearchFunc(entries, q, func(e tree.Entry, q string) int { return tree.CmpPath(e.Path, q) }); ok {
			return &entries[i]
		}
		return nil
	})
}

// diskStill reports whether every folder of the disk at root has the
// identity the save's scan gave it (the index of snapshot id): then no
// name was made, removed or renamed on the disk since, so a path the
// snapshot lacks is truly gone, not moved while the scan ran. A file
// renamed between two folders changes both folders' times.
func diskStill(s *snapstore.Store, root, id string) bool {
	x := s.LoadIndex()
	if x == nil || x.Snapshot != id || !x.Exact {
		return false
	}
	fd, err := tree.OpenRetry(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	still := true
	err = x.Walk(func(p []byte, id tree.Ident) bool {
		if id.Mode&unix.S_IFMT != unix.S_IFDIR {
			return true
		}
		var st unix.Stat_t
		if unix.Fstatat(fd, string(p), &st, unix.AT_SYMLINK_NOFOLLOW) != nil || tree.IdentOf(&st) != id {
			still = false
		}
		return still
	})
	return still && err == nil
}

// absent reports whether a second look finds path rel gone from the side
// rootfd (before a deletion the other side made): it, or a folder above
// it, is gone, or a file or a symlink (never followed) is in a folder's
// place. It is resolved afresh from the top, never through a folder kept
// open (one removed and made again since, git clean then a checkout, is
// seen as it is now). Any doubt is presence, and so is a mount point on
// the way: what the side holds under it was never looked at.
func absent(rootfd int, rel string) bool {
	_, mounted, err := lookBeneath(rootfd, rel)
	return !mounted && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP))
}

// lookBeneath lstats path rel of the side rootfd, resolved from its top
// without following a symlink on the way or at its end; mounted: its
// folder is another file system (macOS: openat has no RESOLVE_NO_XDEV).
func lookBeneath(rootfd int, rel string) (st unix.Stat_t, mounted bool, err error) {
	if rel == "." {
		return st, false, unix.Fstat(rootfd, &st)
	}
	dir, name := tree.SplitRel(rel)
	pfd := rootfd
	if dir != "." {
		if pfd, err = tree.OpenBeneath(rootfd, dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
			return st, false, err
		}
		defer unix.Close(pfd)
		var top, at unix.Stat_t
		if unix.Fstat(rootfd, &top) != nil || unix.Fstat(pfd, &at) != nil || top.Dev != at.Dev {
			return st, true, nil
		}
	}
	return st, false, unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
}
