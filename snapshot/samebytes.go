package snapshot

import (
	"bytes"
	"maps"
	"slices"
	"sort"
	"sync"

	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// A file whose links were removed and made again (pnpm's store after
// node_modules is made again) has a new change time and link count and
// nothing else new: its identity differs from the index's only by its
// ctime. Such a file is not stored again when its bytes, read while it
// holds still (as copier.held reads a copy), equal those of the object
// the snapshot the index describes keeps for it: its new entry, made from
// the scan as a copied file's is, names that object. The mtime alone is
// never trusted (touch -d puts back any time): the bytes are compared.

// sameBuf is the size of each buffer a compare reads through; sameGroup
// the most files of one object a worker compares in a run.
const (
	sameBuf   = 64 << 10
	sameGroup = 256
)

// sameRead, when set (by tests), is called with each file's path once its
// bytes are compared, before it is checked unchanged.
var sameRead func(rel string)

// sameBufs are the compares' buffers, two per compare.
var sameBufs = sync.Pool{New: func() any { b := make([]byte, 2*sameBuf); return &b }}

// sameCand is a file that may hold the bytes of a previous object.
type sameCand struct {
	i   int32       // the item
	ref tree.ObjRef // its previous object
	e   tree.Entry  // its new entry, made from the scan, naming that object
}

// sameBytes finds, among the items d takes as changed, the regular files
// (first links, not sparse, not compared by content through a mapping: w)
// whose identity differs from idx's only by its ctime (under any of the
// names idx lists for the inode: ctimeOnly), and whose bytes, read while
// held still, are those of the object idx's snapshot keeps for that name
// (or for the path it was a hard link to). It returns their new
// entries by item, each naming that object, and the snapshot's tree when
// it read it (nil: none). Reads are counted in progress. Whatever cannot
// be read or compared (gone, moving, an object pruned or damaged) is left
// out: the plan copies it as before.
func (s *Store) sameBytes(root string, idx *snapstore.Index, items []tree.Scanned, d *snapstore.IndexDiff, w *watch, memo sameMemo, progress tree.ProgressFunc) (map[int32]*tree.Entry, *snapstore.Manifest) {
	if idx == nil || idx.Snapshot == "" || s.NoSameBytes {
		return nil, nil
	}
	out := map[int32]*tree.Entry{}
	var cands []int32
	for i := 1; i < len(items); i++ { // the top folder: never a file
		it := &items[i]
		if !d.Same[i] && copiesData(it) && !it.Sparse() && it.Id.CTime != it.Id.MTime && !w.wants(it) {
			if e := memo.entry(items, int32(i)); e != nil {
				out[int32(i)] = e
			} else {
				cands = append(cands, int32(i))
			}
		}
	}
	was := ctimeOnly(idx, items, cands)
	if len(was) == 0 {
		return out, nil
	}
	prev, err := s.Tree(idx.Snapshot, true)
	if err != nil {
		return out, nil
	}
	var todo []sameCand
	var total int64
	at := &entryCursor{entries: prev.Entries}
	for _, i := range cands {
		p, ok := was[i]
		if !ok {
			continue
		}
		c, ok := prevObject(at, items, i, p)
		if ok {
			todo = append(todo, c)
			total += c.e.Size
		}
	}
	if len(todo) == 0 {
		return out, prev
	}
	src, err := tree.OpenTree(root)
	if err != nil {
		return out, prev
	}
	defer src.Close()
	objs, err := tree.OpenTree(s.Path("objects"))
	if err != nil {
		return out, prev
	}
	defer objs.Close()
	m := tree.NewMeter(progress, "saving", total, len(todo))
	equal := make([]bool, len(todo))
	groups := sameGroups(todo)
	_ = tree.Pool(len(groups), tree.Workers, func(g int) error {
		lo, hi := groups[g][0], groups[g][1]
		obj, err := openToRead(objs, todo[lo].ref.Rel)
		if err != nil {
			m.Add(0, hi-lo)
			return nil
		}
		defer unix.Close(obj)
		var ost unix.Stat_t
		if unix.Fstat(obj, &ost) != nil || ost.Mode&unix.S_IFMT != unix.S_IFREG {
			m.Add(0, hi-lo)
			return nil
		}
		for k := lo; k < hi; k++ {
			c := &todo[k]
			equal[k] = sameHeld(src, root, obj, ost.Size, c, &items[c.i])
			m.Add(c.e.Size, 1)
		}
		return nil
	})
	m.Done()
	for k := range todo {
		if equal[k] {
			out[todo[k].i] = &todo[k].e
			memo.add(&items[todo[k].i], &todo[k].e)
		}
	}
	return out, prev
}

// sameMemo remembers, for one save, the files sameBytes found holding
// their saved object's bytes: by inode, the identity they were read at
// and what their entry took from the object. A later round's candidate of
// that identity is the same without reading it again: the compare read
// it settled (its ctime older than the change clock), so any write since
// has moved its ctime. A nil memo remembers nothing.
type sameMemo map[uint64]sameSeen

// sameSeen is one file sameMemo remembers.
type sameSeen struct {
	id    tree.Ident
	obj   tree.ObjName
	xattr map[string][]byte
}

// add remembers that it, as scanned, holds the bytes e names.
func (m sameMemo) add(it *tree.Scanned, e *tree.Entry) {
	if m != nil {
		m[it.Id.Ino] = sameSeen{id: it.Id, obj: e.Obj, xattr: e.Xattr}
	}
}

// entry is item i's entry naming the object an earlier compare found its
// bytes in, when its identity is still the one compared; else nil.
func (m sameMemo) entry(items []tree.Scanned, i int32) *tree.Entry {
	seen, ok := m[items[i].Id.Ino]
	if !ok || seen.id != items[i].Id {
		return nil
	}
	e := tree.ScanEntry(items, int(i))
	e.Obj, e.Size, e.Extents, e.Xattr = seen.obj, items[i].Id.Size, nil, seen.xattr
	return &e
}

// ctimeOnly finds, for each of cands (items), a path idx lists with the
// same inode, mtime, size and mode (its ctime, its link count and even its
// names may differ: its links were made again): by item, that path. A
// damaged index finds none.
func ctimeOnly(idx *snapstore.Index, items []tree.Scanned, cands []int32) map[int32]string {
	if len(cands) == 0 {
		return nil
	}
	byIno := make(map[uint64]int32, len(cands))
	for _, i := range cands {
		byIno[items[i].Id.Ino] = i
	}
	out := map[int32]string{}
	err := idx.Walk(func(p []byte, id tree.Ident) bool {
		i, ok := byIno[id.Ino]
		if !ok {
			return true
		}
		if s := items[i].Id; s.MTime == id.MTime && s.Size == id.Size && s.Mode == id.Mode {
			if _, had := out[i]; !had || string(p) == items[i].Rel { // its own path first
				out[i] = string(p)
			}
		}
		return true
	})
	if err != nil {
		return nil
	}
	return out
}

// prevObject finds in prev (a tree, in path order, asked in path order)
// the object that holds
// item i's bytes as saved at path p (its own path, or another of its
// names): p's, or that of the path p was a hard link to. ok is false when there is none to compare with: the path was
// not a file, or its object is not one whole run of bytes (sparse). The
// candidate's entry is item i's as a copy would make it (but its extras:
// sameCand.extras), with that object.
func prevObject(prev *entryCursor, items []tree.Scanned, i int32, p string) (c sameCand, ok bool) {
	it := &items[i]
	var e *tree.Entry
	if k := prev.index(p); k >= 0 {
		e = &prev.entries[k]
	}
	if e != nil && e.Kind == tree.KindFile && e.HardLink != "" {
		e = entryAt(prev.entries, e.HardLink)
	}
	if e == nil || e.Kind != tree.KindFile || e.Obj.None() || e.HardLink != "" || e.Extents != nil || e.Size != it.Id.Size {
		return c, false
	}
	ref, err := snapstore.ObjRefOf(*e)
	if err != nil {
		return c, false
	}
	c = sameCand{i: i, ref: ref, e: tree.ScanEntry(items, int(i))}
	c.e.Obj, c.e.Size, c.e.Extents = e.Obj, e.Size, nil
	return c, true
}

// extras reads c's xattrs (those readExtras reads of a file the plan
// does not reuse) into its entry; in is the file, open. A file with none
// listed is known by one flistxattr; false when they cannot be read.
func (c *sameCand) extras(root string, in int) bool {
	if n, err := unix.Flistxattr(in, nil); err == nil && n == 0 {
		c.e.Xattr = nil
		return true
	}
	x, err := tree.ReadExtra(root, &c.e)
	c.e.Xattr = x.Xattr
	return err == nil
}

// sameGroups splits todo (sorted here by object and place) into runs of
// candidates in one object, each at most sameGroup long: a worker opens
// each object once per run.
func sameGroups(todo []sameCand) [][2]int {
	sort.Slice(todo, func(a, b int) bool {
		x, y := &todo[a].ref, &todo[b].ref
		return x.Rel < y.Rel || x.Rel == y.Rel && x.Off < y.Off
	})
	var groups [][2]int
	for lo := 0; lo < len(todo); {
		hi := lo + 1
		for hi < len(todo) && hi-lo < sameGroup && todo[hi].ref.Rel == todo[lo].ref.Rel {
			hi++
		}
		groups = append(groups, [2]int{lo, hi})
		lo = hi
	}
	return groups
}

// entryAt is the entry of path p in entries (in path order), or nil.
func entryAt(entries []tree.Entry, p string) *tree.Entry {
	if n := entryIndex(entries, p); n >= 0 {
		return &entries[n]
	}
	return nil
}

// entryCursor finds paths in entries (in path order), fastest asked in
// path order: each search gallops on from where the last one ended, and
// starts again from the first entry for a path behind it.
type entryCursor struct {
	entries []tree.Entry
	at      int // every entry before at is before the last path asked
}

// index is where path p is in the entries, or -1.
func (c *entryCursor) index(p string) int {
	es, lo := c.entries, c.at
	if lo > len(es) || lo > 0 && !tree.PathLess(es[lo-1].Path, p) {
		lo = 0
	}
	hi, step := lo, 1
	for hi < len(es) && tree.PathLess(es[hi].Path, p) {
		lo, hi, step = hi+1, hi+1+step, step*2
	}
	hi = min(hi, len(es))
	k := lo + sort.Search(hi-lo, func(j int) bool { return !tree.PathLess(es[lo+j].Path, p) })
	c.at = k
	if k < len(es) && es[k].Path == p {
		return k
	}
	return -1
}

// entryIndex is where path p is in entries (in path order), or -1.
func entryIndex(entries []tree.Entry, p string) int {
	n := sort.Search(len(entries), func(k int) bool { return !tree.PathLess(entries[k].Path, p) })
	if n < len(entries) && entries[n].Path == p {
		return n
	}
	return -1
}

// sameHeld reports whether the file it (under src, the tree at root)
// holds the bytes of c's object (obj, open, of objSize bytes), read while
// it held still: its identity the scan's before and after the read, the
// read begun only once the file is settled (settledBy, tree.WriteBarrier:
// as copier.held begins a copy). A file not settled yet is not waited
// for: the copy that follows waits. c's xattrs are read meanwhile.
func sameHeld(src *tree.DirTree, root string, obj int, objSize int64, c *sameCand, it *tree.Scanned) bool {
	in, err := openToRead(src, it.Rel)
	if err != nil {
		return false
	}
	defer unix.Close(in)
	clock := tree.ChangeClock()
	var st unix.Stat_t
	if unix.Fstat(in, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || tree.IdentOf(&st) != it.Id {
		return false
	}
	if ok, _ := settledBy(it.Id, clock, copyQuiet(it.Id.Size)); !ok {
		return false
	}
	tree.WriteBarrier(in)
	off, size := int64(0), it.Id.Size
	if c.ref.Packed {
		off = c.ref.Off
		if c.ref.Size != size || off < 0 || off > objSize-size {
			return false
		}
	} else if objSize != size {
		return false
	}
	if !c.extras(root, in) || !sameContents(in, obj, off, size) {
		return false
	}
	if sameRead != nil {
		sameRead(it.Rel)
	}
	if unix.Fstat(in, &st) != nil {
		return false
	}
	return tree.IdentOf(&st) == it.Id
}

// sameContents reports whether a holds exactly size bytes, the ones b
// holds from off.
func sameContents(a, b int, off, size int64) bool {
	bp := sameBufs.Get().(*[]byte)
	defer sameBufs.Put(bp)
	x, y := (*bp)[:sameBuf], (*bp)[sameBuf:]
	var at int64
	for at < size {
		n := int(min(int64(sameBuf), size-at))
		if !readFull(a, x[:n], at) || !readFull(b, y[:n], off+at) || !bytes.Equal(x[:n], y[:n]) {
			return false
		}
		at += int64(n)
	}
	var one [1]byte
	k, err := unix.Pread(a, one[:], size) // nothing past size
	return k == 0 && err == nil
}

// readFull fills p from fd at off; false on an error or an early end.
func readFull(fd int, p []byte, off int64) bool {
	for len(p) > 0 {
		n, err := unix.Pread(fd, p, off)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return false
		}
		p, off = p[n:], off+int64(n)
	}
	return true
}

// reuseSame makes f reuse the entries of same (by item): each takes the
// place of its path's entry in f.prev (the tree read for this plan alone,
// so it is changed in place; its paths stay as they were), or is added
// after them when f.prev has no such path.
func reuseSame(f *fullPlan, same map[int32]*tree.Entry) {
	var more []int32
	order := slices.Sorted(maps.Keys(same)) // items, so paths, in order
	at := &entryCursor{entries: f.prev}
	for _, i := range order {
		e := same[i]
		if k := at.index(e.Path); k >= 0 {
			f.prev[k], f.reuse[i] = *e, int32(k+1)
		} else {
			more = append(more, i)
		}
	}
	if len(more) == 0 {
		return
	}
	prev := make([]tree.Entry, len(f.prev), len(f.prev)+len(more))
	copy(prev, f.prev)
	for _, i := range more {
		prev = append(prev, *same[i])
		f.reuse[i] = int32(len(prev))
	}
	f.prev = prev
}
