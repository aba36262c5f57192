package tree

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// Rescanned is a scan made by Rescan, compared with the scan it started
// from.
type Rescanned struct {
	Items   []Scanned // as a full scan gives them
	NotKept []NotKept
	// From[i] is Items[i]'s place in the earlier scan, -1 for a new path.
	From []int32
	// Kept[i]: Items[i] is the earlier scan's From[i] as it was (path,
	// identity, hard-link target), taken with no look at the disk. Nil
	// when hard links were regrouped (then compare).
	Kept []bool
	// Firsts are the places in Items of the files other names link to
	// (the next Rescan's Opts.Firsts).
	Firsts map[int32]bool
	// Same[i]: Items[i] is in the earlier scan with the same path,
	// identity and hard-link target.
	Same []bool
	// Gone are the earlier scan's paths no longer on the disk.
	Gone []string
	// Read are the folders read again (the others were taken from the
	// earlier scan).
	Read map[string]bool
	// Reshaped: a path appeared or went, changed its kind or its
	// hard-link target.
	Reshaped bool
}

// Dirty is what changed since a scan, as a change feed tells it: the
// folders in which something changed, and the files given another name.
type Dirty struct {
	Folders map[string]struct{}
	Linked  map[uint64]struct{}
	// Named are, for some of Folders, the names in them that changed:
	// only those entries are looked at again (changefeed.Changes.Named).
	Named map[string]map[string]struct{}
}

// Rescan scans root again reading only the folders dirty names, the new
// folders it finds in them and every name of a file given or losing a
// name;
// every other path is taken from prev, an earlier scan of the same disk
// (notKept its skipped paths), which must have been made after a change
// feed started following every folder that dirty is taken from. Its
// Items are what ScanWith would give (the property test holds it to
// that). Folders read are given to o's watches as a scan gives them.
func Rescan(root string, prev []Scanned, notKept []NotKept, dirty Dirty, o Opts) (*Rescanned, error) {
	var st unix.Stat_t
	if err := unix.Lstat(root, &st); err != nil {
		return nil, fmt.Errorf("lstat %s: %w", root, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || len(prev) == 0 || prev[0].Rel != "." {
		return nil, fmt.Errorf("rescan %s: not a folder, or no earlier scan", root)
	}
	top, err := OpenRetry(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("read folder %s: %w", root, err)
	}
	defer unix.Close(top)
	o.Still.add(top, root, ".") // the top's own watch, read or not
	r := &rescan{root: root, top: top, prev: prev, dirty: dirty.Folders, named: dirty.Named, below: map[string]bool{}, o: o,
		res: &Rescanned{Read: map[string]bool{}}, partial: map[string]map[string]struct{}{}, vanished: map[string]bool{}}
	for ino := range dirty.Linked {
		r.noteLinks(ino, true)
	}
	for d := range dirty.Folders {
		for ; !r.below[d]; d = parentOf(d) {
			r.below[d] = true
			if d == "." {
				break
			}
		}
	}
	if r.firsts = o.Firsts; r.firsts == nil {
		r.firsts = firstsOf(prev)
	}
	if n := len(prev) + len(prev)/64 + 16; cap(o.Into) >= n {
		r.out = o.Into[:0]
	} else {
		r.out = make([]Scanned, 0, n)
	}
	r.from = make([]int32, 0, cap(r.out))
	r.fresh = make([]bool, 0, cap(r.out))
	r.emit(scannedOf(".", &st), 0)
	if err := r.folder(0, len(prev)); err != nil {
		return nil, err
	}
	r.links()
	r.res.Items, r.res.From = r.out, r.from
	r.res.NotKept = r.keptNot(notKept)
	r.same()
	if r.res.Firsts == nil {
		r.res.Firsts = map[int32]bool{} // no file of several names
	}
	if r.linked {
		r.res.Firsts = firstsOf(r.out)
	} else {
		r.res.Kept = r.fresh
		for i, f := range r.fresh {
			r.res.Kept[i] = !f
		}
	}
	return r.res, nil
}

// rescan is one Rescan's state.
type rescan struct {
	root  string
	top   int
	prev  []Scanned
	dirty map[string]struct{}
	named map[string]map[string]struct{} // Dirty.Named
	// partial are the folders read only at the names that changed (the
	// rest taken from prev), with those names.
	partial map[string]map[string]struct{}
	below   map[string]bool // the dirty folders and every folder above one
	// vanished are the folders found gone when read again.
	vanished map[string]bool
	o        Opts
	res      *Rescanned
	out      []Scanned
	// from[i] is the place in prev of out[i]'s path, -1 for a new path;
	// fresh[i] whether out[i] was stat'ed now.
	from    []int32
	fresh   []bool
	skipped []NotKept
	// relinked are the inodes of files of several names (before or now)
	// among the paths read: their other names are stat'ed again, wherever
	// they are (a link made or removed changes every name's count).
	relinked map[uint64]bool
	firsts   map[int32]bool // prev's files that other names link to
	linked   bool           // links regrouped hard links
}

// several reports whether prev[k] is a file of several names.
func (r *rescan) several(k int) bool { return r.prev[k].HardLink != 0 || r.firsts[int32(k)] }

// parentOf is the folder holding rel ("." for the top's names).
func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "."
}

// emit appends it, stat'ed now, from prev's place pi (-1: new).
func (r *rescan) emit(it Scanned, pi int) {
	r.out = append(r.out, it)
	r.from = append(r.from, int32(pi))
	r.fresh = append(r.fresh, true)
}

// carry appends prev[pi] as it was.
func (r *rescan) carry(pi int) {
	r.out = append(r.out, r.prev[pi])
	r.from = append(r.from, int32(pi))
	r.fresh = append(r.fresh, false)
}

// carryAll appends prev[from:to] as they were.
func (r *rescan) carryAll(from, to int) {
	r.out = append(r.out, r.prev[from:to]...)
	for k := from; k < to; k++ {
		r.from = append(r.from, int32(k))
	}
	r.fresh = append(r.fresh, make([]bool, to-from)...)
}

// end is the place in prev after folder pi's contents.
func (r *rescan) end(pi int) int { return r.endIn(pi, len(r.prev)) }

// endIn is end(pi) for a folder pi whose contents end at limit or before
// (its parent's end).
func (r *rescan) endIn(pi, limit int) int {
	if pi == 0 {
		return len(r.prev)
	}
	rel := r.prev[pi].Rel
	in := func(k int) bool {
		p := r.prev[k].Rel
		return len(p) > len(rel) && p[len(rel)] == '/' && p[:len(rel)] == rel
	}
	// Galloping: most folders are small, so the search costs the log of
	// the folder's size, not of the disk's.
	lo, step := pi+1, 1
	for lo+step < limit && in(lo+step-1) {
		lo, step = lo+step, step*2
	}
	hi := min(lo+step, limit)
	return lo + sort.Search(hi-lo, func(k int) bool { return !in(lo + k) })
}

// folder appends the contents of folder pi of prev (appended already):
// read again when dirty, else taken from prev, down to the dirty folders
// below it. Its contents end at limit or before (its parent's end).
func (r *rescan) folder(pi, limit int) error {
	rel := r.prev[pi].Rel
	if _, ok := r.dirty[rel]; ok {
		// A change in a folder changes the folder's own times, which its
		// parent's listing holds (and no event of the parent tells).
		if me := len(r.out) - 1; !r.fresh[me] {
			var st unix.Stat_t
			if err := unix.Fstatat(r.top, rel, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
				r.out[me], r.fresh[me] = scannedOf(rel, &st), true
			}
		}
		return r.read(rel, pi)
	}
	end := r.endIn(pi, limit)
	if !r.below[rel] {
		r.carryAll(pi+1, end)
		return nil
	}
	for k := pi + 1; k < end; {
		r.carry(k)
		if r.prev[k].Id.Mode&unix.S_IFMT != unix.S_IFDIR {
			k++
			continue
		}
		if !r.below[r.prev[k].Rel] {
			next := r.endIn(k, end)
			r.carryAll(k+1, next)
			k = next
			continue
		}
		if err := r.folder(k, end); err != nil {
			return err
		}
		k = r.endIn(k, end)
	}
	return nil
}

// read reads folder rel again (pi its place in prev, -1 if new) and
// appends its names, merged with prev's: a folder that was there (the
// same inode) goes on as folder does, a new one is read whole; what prev
// had and the folder no longer does is gone.
func (r *rescan) read(rel string, pi int) error {
	var list []Scanned
	only := r.named[rel] // nil: every name
	if pi < 0 {
		only = nil
	}
	_, skipped, err := readDirOf(r.top, r.root, rel, &list, r.o, only)
	vanished := errors.Is(err, errVanished)
	if vanished {
		// Gone since the feed named it (its parent too, maybe): every
		// name prev had in it is gone, not only the named ones. Not read:
		// its parent's listing changed, which the save's next look sees.
		err, only = nil, nil
		r.vanished[rel] = true
	}
	if err != nil {
		return err
	}
	if !vanished {
		r.res.Read[rel] = true // its still watch is set: it is followed (calm)
	}
	if only != nil {
		r.partial[rel] = only
	}
	r.skipped = append(r.skipped, skipped...)
	var olds []int // prev's names in rel
	if pi >= 0 {
		for k, end := pi+1, r.end(pi); k < end; k = r.next(k) {
			olds = append(olds, k)
		}
	}
	// What prev has and the read did not find is gone, unless the read
	// looked only at other names: then it is as it was.
	absent := func(k int) error {
		if only != nil {
			_, name := SplitRel(r.prev[k].Rel)
			if _, looked := only[name]; !looked {
				r.carry(k)
				if r.prev[k].Id.Mode&unix.S_IFMT == unix.S_IFDIR {
					return r.folder(k, len(r.prev))
				}
				return nil
			}
		}
		r.gone(k)
		return nil
	}
	o := 0
	for _, c := range list {
		for o < len(olds) && r.prev[olds[o]].Rel < c.Rel {
			if err := absent(olds[o]); err != nil {
				return err
			}
			o++
		}
		match := -1
		if o < len(olds) && r.prev[olds[o]].Rel == c.Rel {
			match = olds[o]
			o++
		}
		r.emit(c, match)
		r.noteLinks(c.Id.Ino, c.HardLink != 0)
		if match >= 0 {
			r.noteLinks(r.prev[match].Id.Ino, r.several(match))
		}
		isDir := c.Id.Mode&unix.S_IFMT == unix.S_IFDIR
		wasDir := match >= 0 && r.prev[match].Id.Mode&unix.S_IFMT == unix.S_IFDIR
		switch {
		case isDir && wasDir && r.prev[match].Id.Ino == c.Id.Ino:
			err = r.folder(match, len(r.prev))
		case isDir:
			if wasDir {
				r.goneBelow(match)
			}
			err = r.whole(c.Rel)
		case wasDir:
			r.goneBelow(match)
		}
		if err != nil {
			return err
		}
	}
	for ; o < len(olds); o++ {
		if err := absent(olds[o]); err != nil {
			return err
		}
	}
	return nil
}

// next is the place in prev after name k of a folder (and its contents).
func (r *rescan) next(k int) int {
	if r.prev[k].Id.Mode&unix.S_IFMT == unix.S_IFDIR {
		return r.end(k)
	}
	return k + 1
}

// whole reads new folder rel and everything in it.
func (r *rescan) whole(rel string) error {
	n := len(r.out)
	out, skipped, err := readTree(r.root, rel, r.out, nil, r.o)
	if err != nil {
		return err
	}
	r.out, r.skipped = out, append(r.skipped, skipped...)
	for i := n; i < len(r.out); i++ {
		r.from = append(r.from, -1)
		r.fresh = append(r.fresh, true)
		r.noteLinks(r.out[i].Id.Ino, r.out[i].HardLink != 0)
		if r.out[i].Id.Mode&unix.S_IFMT == unix.S_IFDIR {
			r.res.Read[r.out[i].Rel] = true
		}
	}
	r.res.Read[rel] = true
	return nil
}

// gone records name k of prev (and, a folder, its contents) as gone.
func (r *rescan) gone(k int) {
	r.res.Gone = append(r.res.Gone, r.prev[k].Rel)
	r.noteLinks(r.prev[k].Id.Ino, r.several(k))
	if r.prev[k].Id.Mode&unix.S_IFMT == unix.S_IFDIR {
		r.goneBelow(k)
	}
}

// goneBelow records the contents of folder k of prev as gone.
func (r *rescan) goneBelow(k int) {
	for j, end := k+1, r.end(k); j < end; j++ {
		r.res.Gone = append(r.res.Gone, r.prev[j].Rel)
		r.noteLinks(r.prev[j].Id.Ino, r.several(j))
	}
}
