package snapshot

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"time"

	"rambar/snapstore"
	"rambar/tree"
)

// What a save keeps of a disk that never held still (settle.go), labelled
// "taken while in use" (inuse.go):
//
//   - When only files' contents kept changing (no path appeared or went,
//     no folder changed between the last round's scan and its look), the
//     paths are that scan's: every listing as it was at one moment. Each
//     file gets what the round took of it when that is a version that
//     existed (unchanged from its scan to the end of its copy), else its
//     previous version, else it is left out (and named).
//   - When listings changed too (a message moved between a maildir's new/
//     and cur/, a journal that comes and goes), the scan may have read the
//     folder a file went to before it arrived and the one it left after:
//     the paths are then the scan's and the previous snapshot's together,
//     so a file moved is in one of its folders, old or new (perhaps both),
//     never in neither; a file removed meanwhile may come back from the
//     previous snapshot.
//   - The files of a folder in which any file could not be taken as a
//     version that existed (a database and its journal, or WAL, written
//     without pause) are all the previous snapshot's: files that belong
//     together match as they did then, never one new beside one old. A
//     file new since then in such a folder is left out this time (and
//     named with the paths in use).
//   - Hard links whose target was left out are left out too; a previous
//     version's link whose target is now another file's is kept as a file
//     of its own, with the bytes it had.
//
// A save whose result is the previous snapshot (but for the top folder's
// times) commits nothing, and says so.

// took is what the last round of a save took of one of its scan's paths:
// its entry (a copied file with its object), and whether that is a
// version that existed.
type took struct {
	e  tree.Entry
	id tree.Ident // as scanned (a previous version's: its inode then, if known)
	ok bool
	// old: the previous snapshot's entry; empty, dropped when it holds
	// nothing (a folder moved elsewhere meanwhile).
	old, empty bool
}

// inUse commits what round r, the last, took of a disk that never held
// still, spliced with the previous snapshot, labelled taken while in use.
func (ls *liveSave) inUse(r *round) (Result, error) {
	prev, err := ls.previous()
	if err != nil {
		return Result{}, err
	}
	var was map[string]uint64 // the inodes of prev's paths, when listings moved
	if r.reshaped && ls.idx != nil {
		was = map[string]uint64{}
		ls.idx.Walk(func(p []byte, id tree.Ident) bool {
			if id.Ino != 0 {
				was[string(p)] = id.Ino
			}
			return true
		})
	}
	all := ls.tookTree(r, prev)
	stale := staleFolders(all)
	entries, ids, fresh := splice(prev, all, r.reshaped, was, stale)
	u := inUseOf(r.moved)
	u.Paths = leftOut(u.Paths, all, entries, stale)
	u.Count = max(u.Count, len(u.Paths))
	if len(u.Paths) > snapstore.InUseMax {
		u.Paths = u.Paths[:snapstore.InUseMax]
	}
	if prev != nil && fresh == 0 {
		return Result{Snapshot: ls.curID, Unchanged: true, Files: prev.Files, Bytes: prev.Bytes, InUse: u, AsOf: ls.scanAt}, nil
	}
	m := &snapstore.Manifest{Header: snapstore.Header{ID: ls.id, Created: time.Now().UTC()}, Entries: entries}
	res := Result{Snapshot: ls.id, InUse: u, AsOf: ls.scanAt}
	for i := range entries {
		if e := &entries[i]; e.Kind == tree.KindFile {
			m.Files++
			m.Bytes += e.Size
			if e.Obj.Save == ls.id {
				res.CopiedFiles++
				res.CopiedBytes += e.Size
			}
		}
	}
	res.Files, res.Bytes = m.Files, m.Bytes
	if err := ls.s.WriteInUse(ls.id, u); err != nil {
		return Result{}, err
	}
	ms := streamOf(m)
	if err := ls.s.writeSnapshot(ms); err != nil {
		return Result{}, err
	}
	w := snapstore.NewIndexWriter(ls.id, ls.diskID, len(entries))
	for i := range entries {
		w.Add(entries[i].Path, ids[i], entries[i].HardLink, nil)
	}
	if err := ls.commit(ms.Refs[ls.id], w.Bytes(), nil); err != nil {
		return Result{}, err
	}
	if r.splicedAsScanned(len(entries)) && !revertedTaken(all, stale) {
		ls.committed = &followed{snapshot: ls.id, items: r.items, notKept: ls.notKept, firsts: ls.firsts}
	}
	return res, nil
}

// previous is the tree the disk was saved or restored as (the index's
// snapshot, else the current one); nil when there is none.
func (ls *liveSave) previous() (*snapstore.Manifest, error) {
	switch {
	case ls.idx != nil:
		return ls.s.Tree(ls.idx.Snapshot, true)
	case ls.curID != "":
		return ls.s.Manifest(ls.curID)
	}
	return nil, nil
}

// tookTree is what round r took of each path of its scan (prev: the tree
// the plan's unchanged paths come from).
func (ls *liveSave) tookTree(r *round, prev *snapstore.Manifest) []took {
	p, items := r.p, r.items
	out := make([]took, 0, len(items))
	fresh := map[string]int{} // a delta's entries by path
	jobOf := map[int32]int{}  // jobs by ref
	for k := range p.jobs {
		jobOf[p.jobs[k].ref] = k
	}
	for i := range p.entries {
		fresh[p.entries[i].Path] = i
	}
	pi := 0
	for i := range items {
		it := &items[i]
		t := took{e: tree.ScanEntry(items, i), id: it.Id, ok: !r.lost[it.Rel]}
		switch {
		case p.full != nil && p.full.reuse != nil && p.full.reuse[i] > 0:
			t.e = p.full.prev[p.full.reuse[i]-1]
		case p.full != nil:
			t.e = tree.ScanEntry(items, i)
			x, has := p.full.extras[it.Rel]
			t.e.Link, t.e.Xattr = x.Link, x.Xattr
			t.ok = t.ok && (t.e.Kind != tree.KindSymlink || has)
			if k, job := jobOf[int32(i)]; job {
				t.ok = ls.withObject(&t.e, &p.jobs[k], r.ext.m[k]) && t.ok
			}
		case p.same[i]:
			for prev != nil && pi < len(prev.Entries) && tree.PathLess(prev.Entries[pi].Path, it.Rel) {
				pi++
			}
			if t.ok = t.ok && prev != nil && pi < len(prev.Entries) && prev.Entries[pi].Path == it.Rel; t.ok {
				t.e = prev.Entries[pi]
			}
		default:
			fi, has := fresh[it.Rel]
			if t.ok = t.ok && has; t.ok {
				t.e = p.entries[fi]
				if k, job := jobOf[int32(fi)]; job {
					t.ok = ls.withObject(&t.e, &p.jobs[k], r.ext.m[k])
				}
			}
		}
		out = append(out, t)
	}
	return out
}

// withObject gives e job j's copy; false when j holds no version of the
// file as scanned.
func (ls *liveSave) withObject(e *tree.Entry, j *copyJob, ext []tree.Extent) bool {
	if !j.ok() {
		return false
	}
	e.Obj, e.Size, e.Extents = j.obj(ls.id), j.size, ext
	return true
}

// splice makes the tree a save of a disk that never held still keeps (see
// above; union: listings changed, so prev's paths are kept too, but for
// those moved elsewhere, as far as moved can tell): its entries, the
// identity of each as the last round scanned it (prev's: only their inode,
// if known, so the next save reads them again), and how many differ from
// prev's (all, without prev).
func splice(prev *snapstore.Manifest, all []took, union bool, was map[string]uint64, stale map[string]bool) (entries []tree.Entry, ids []tree.Ident, fresh int) {
	where := elsewhere(all, was, stale)
	var old []tree.Entry
	if prev != nil {
		old = prev.Entries
	}
	oldAt := make(map[string]*tree.Entry, len(old))
	for i := range old {
		oldAt[old[i].Path] = &old[i]
	}
	var out []took
	add := func(e *tree.Entry) { // a path only prev has
		ino, moved := where(e.Path)
		switch {
		case inStale(stale, e):
			out = append(out, took{e: *e, id: tree.Ident{Ino: ino}, old: true})
		case union && (e.Kind == tree.KindDir || !moved): // a file moved is where the scan found it
			out = append(out, took{e: *e, id: tree.Ident{Ino: ino}, old: true, empty: moved})
		}
	}
	j := 0
	for i := range all {
		t := all[i]
		for ; j < len(old) && tree.PathLess(old[j].Path, t.e.Path); j++ {
			add(&old[j])
		}
		if j < len(old) && old[j].Path == t.e.Path {
			j++
		}
		switch o := oldAt[t.e.Path]; {
		case inStale(stale, &t.e):
			if o != nil && o.Kind == t.e.Kind {
				ino, _ := where(o.Path)
				out = append(out, took{e: *o, id: tree.Ident{Ino: ino}, old: true})
			}
		case t.ok:
			out = append(out, t)
		case o != nil && o.Kind == t.e.Kind:
			ino, _ := where(o.Path)
			out = append(out, took{e: *o, id: tree.Ident{Ino: ino}, old: true})
		case t.e.Kind == tree.KindDir: // gone meanwhile: as scanned, for what it held
			out = append(out, t)
		}
	}
	for ; j < len(old); j++ {
		add(&old[j])
	}
	return mend(out, oldAt)
}

// staleFolders are the folders holding a file of all (not a folder) that
// was not taken as a version that existed.
func staleFolders(all []took) map[string]bool {
	out := map[string]bool{}
	for i := range all {
		if t := &all[i]; !t.ok && t.e.Kind != tree.KindDir {
			parent, _ := pathParent(t.e.Path)
			out[parent] = true
		}
	}
	return out
}

// inStale reports whether e is a file (not a folder) in a stale folder.
func inStale(stale map[string]bool, e *tree.Entry) bool {
	if e.Kind == tree.KindDir {
		return false
	}
	parent, _ := pathParent(e.Path)
	return stale[parent]
}

// revertedTaken reports whether a file taken as scanned is the previous
// snapshot's in the splice (its folder is stale): the next save by the
// feed would take it as saved, with no change to tell it otherwise.
func revertedTaken(all []took, stale map[string]bool) bool {
	for i := range all {
		if t := &all[i]; t.ok && inStale(stale, &t.e) {
			return true
		}
	}
	return false
}

// leftOut is paths with the files of all, in stale folders, that the
// spliced entries leave out, sorted.
func leftOut(paths []string, all []took, entries []tree.Entry, stale map[string]bool) []string {
	if len(stale) == 0 {
		return paths
	}
	kept := make(map[string]bool, len(entries))
	for i := range entries {
		kept[entries[i].Path] = true
	}
	for i := range all {
		if t := &all[i]; inStale(stale, &t.e) && !kept[t.e.Path] {
			paths = append(paths, t.e.Path)
		}
	}
	sortPaths(paths)
	return slices.Compact(paths)
}

// elsewhere tells, for a path of the previous snapshot, its inode then
// (was) and whether that inode is in what the save keeps of the disk now
// (tree: what it took whole, but in stale folders, and folders): then the
// path moved, and is where the scan found it.
func elsewhere(all []took, was map[string]uint64, stale map[string]bool) func(rel string) (uint64, bool) {
	now := map[uint64]bool{}
	if len(was) > 0 {
		for i := range all {
			if t := &all[i]; t.ok && !inStale(stale, &t.e) || t.e.Kind == tree.KindDir {
				now[t.id.Ino] = true
			}
		}
	}
	return func(rel string) (uint64, bool) {
		ino := was[rel]
		return ino, ino != 0 && now[ino]
	}
}

// mend drops from tree (in order) what a restore could not make or would
// make wrong: a path not inside a folder of the tree; a hard link whose
// target is not a file with data before it, or (a previous version's
// link) not that version's: a previous version's link gets the bytes its
// target had then (oldAt), another is left out; a previous version's
// folder moved elsewhere that holds nothing. It returns the entries, their
// identities, and how many differ from oldAt's.
func mend(all []took, oldAt map[string]*tree.Entry) (entries []tree.Entry, ids []tree.Ident, fresh int) {
	dirs := map[string]bool{}
	data := map[string]bool{} // files with data: true when a previous version
	kept := make([]took, 0, len(all))
	for i := range all {
		t := &all[i]
		parent, _ := pathParent(t.e.Path)
		if t.e.Path != "." && !dirs[parent] {
			continue
		}
		if l := t.e.HardLink; l != "" {
			was, ok := data[l]
			switch o := oldAt[l]; {
			case ok && (!t.old || was):
			case t.old && o != nil && o.Kind == tree.KindFile && o.HardLink == "":
				t.e.HardLink, t.e.Obj, t.e.Extents, t.e.Size = "", o.Obj, o.Extents, o.Size
			default:
				continue
			}
		}
		switch {
		case t.e.Kind == tree.KindDir:
			dirs[t.e.Path] = true
		case t.e.Kind == tree.KindFile && t.e.HardLink == "":
			data[t.e.Path] = t.old
		}
		kept = append(kept, *t)
	}
	// Folders moved elsewhere that hold nothing, deepest first.
	next := ""
	for i := len(kept) - 1; i >= 0; i-- {
		if t := &kept[i]; t.empty && !strings.HasPrefix(next, t.e.Path+"/") {
			t.e.Path = ""
			continue
		}
		next = kept[i].e.Path
	}
	for i := range kept {
		t := &kept[i]
		if t.e.Path == "" {
			continue
		}
		entries, ids = append(entries, t.e), append(ids, t.id)
		if o := oldAt[t.e.Path]; t.e.Path != "." && (o == nil || !sameEntry(&t.e, o)) {
			fresh++
		}
	}
	return entries, ids, fresh
}

// pathParent is the folder holding path p ("." for a top-level one); ok
// is false for the root.
func pathParent(p string) (string, bool) {
	if p == "." {
		return "", false
	}
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i], true
	}
	return ".", true
}

// sameEntry reports whether a and b record the same path alike.
func sameEntry(a, b *tree.Entry) bool {
	return a.Path == b.Path && a.Kind == b.Kind && a.Mode == b.Mode && a.Size == b.Size && a.MTime == b.MTime &&
		a.ATime == b.ATime && a.UID == b.UID && a.GID == b.GID && a.Link == b.Link && a.HardLink == b.HardLink &&
		a.Obj == b.Obj && slices.Equal(a.Extents, b.Extents) && maps.EqualFunc(a.Xattr, b.Xattr, bytes.Equal)
}
