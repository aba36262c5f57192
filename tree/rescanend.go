package tree

import (
	"sort"

	"golang.org/x/sys/unix"
)

// noteLinks notes inode ino when it is a file of several names.
func (r *rescan) noteLinks(ino uint64, several bool) {
	if several {
		if r.relinked == nil {
			r.relinked = map[uint64]bool{}
		}
		r.relinked[ino] = true
	}
}

// links stats again the paths taken from prev whose inodes changed their
// names, then groups the hard links as a scan does (the places of prev's
// groups mean nothing in out).
func (r *rescan) links() {
	if len(r.firsts) == 0 && len(r.relinked) == 0 {
		return // no file of several names, before or now
	}
	if len(r.relinked) == 0 && r.moveLinks() {
		return
	}
	r.linked = true
	for i := range r.out {
		it := &r.out[i]
		if it.Id.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		if !r.fresh[i] && r.relinked[it.Id.Ino] {
			var st unix.Stat_t
			if err := unix.Fstatat(r.top, it.Rel, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
				*it, r.fresh[i] = scannedOf(it.Rel, &st), true
			}
			// Gone or no longer a file meanwhile: its folder changed, and
			// the save's look at the disk finds it.
		}
		if it.HardLink != 0 || !r.fresh[i] && r.firsts[r.from[i]] {
			it.HardLink = -1
		}
	}
	linkGroups(r.out)
}

// firstsOf is the places in items of the files other names link to.
func firstsOf(items []Scanned) map[int32]bool {
	firsts := map[int32]bool{}
	for i := range items {
		if l := items[i].HardLink; l > 0 {
			firsts[l-1] = true
		}
	}
	return firsts
}

// same compares each path with prev's: taken from it and not stat'ed
// again, or stat'ed with the same identity, and the same hard-link target
// either way.
func (r *rescan) same() {
	res := r.res
	res.Same = make([]bool, len(r.out))
	res.Reshaped = len(res.Gone) > 0
	for i := range r.out {
		if !r.fresh[i] && !r.linked {
			res.Same[i] = true // prev's, as it was
			continue
		}
		pi := r.from[i]
		if pi < 0 {
			res.Reshaped = true
			continue
		}
		p, it := &r.prev[pi], &r.out[i]
		s := !r.fresh[i] || SameIdent(it.Rel, it.Id, p.Id)
		if it.HardLink != 0 || p.HardLink != 0 {
			if HardLinkOf(r.out, i) != HardLinkOf(r.prev, int(pi)) {
				s, res.Reshaped = false, true
			}
		}
		if it.Id.Mode&unix.S_IFMT != p.Id.Mode&unix.S_IFMT {
			res.Reshaped = true
		}
		res.Same[i] = s
	}
}

// keptNot is the skipped paths of the rescan: those read now, and prev's
// in folders taken from it.
func (r *rescan) keptNot(prev []NotKept) []NotKept {
	out := r.skipped
	for _, n := range prev {
		dir := parentOf(n.Path)
		if only, ok := r.partial[dir]; ok {
			_, name := SplitRel(n.Path)
			if _, looked := only[name]; looked {
				continue // looked at again: in skipped if still skipped
			}
		} else if r.res.Read[dir] || r.vanished[dir] {
			continue
		}
		if k := sort.Search(len(r.out), func(k int) bool { return !PathLess(r.out[k].Rel, dir) }); k < len(r.out) && r.out[k].Rel == dir {
			out = append(out, n)
		}
	}
	return uniqNotKept(out) // a mount point read again is in both
}
