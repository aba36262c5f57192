package mirror

import (
	"fmt"
	"sort"
	"time"

	"golang.org/x/sys/unix"
)

// The write-back plan: which version of each path the folder gets.
//
// For every path the record (the last load or write-back) says what the
// disk had then (base). The folder and the disk are each compared with base
// by content:
//
//   - the disk did not change it: the folder keeps what it has (an outside
//     edit, addition or deletion stays as it is);
//   - the disk changed it and the folder still holds base: the disk's
//     version (or its deletion) is written;
//   - both changed it to different contents: a conflict. Both are kept:
//     the disk's version under the name and the folder's beside it as a
//     conflict copy (a folder always keeps its name: a file or link the
//     disk made there is the copy then); a deletion on one side against an
//     edit on the other keeps the edit.
//
// Comparing with the disk's base rather than with the folder's last
// version means an outside edit the disk never took is never overwritten
// by a later disk edit without a conflict copy.

type source uint8

const (
	fromFolder source = iota + 1 // hard-link the folder's own entry (Src)
	fromDisk                     // copy the disk's version from the store
	makeDir                      // a folder made anew
)

// fstate is a folder path as the write-back found it, with its content hash.
type fstate struct {
	e    *fsEntry
	hash string
}

func (f *fstate) side() *side {
	if f == nil {
		return nil
	}
	s := &side{Kind: f.e.kind(), Mode: uint32(f.e.st.Mode) & 0o7777, Hash: f.hash}
	switch {
	case f.e.st.Mode&unix.S_IFMT == unix.S_IFIFO:
		s.Kind = KindFIFO
	case !f.e.isReg() && !f.e.isDir() && !f.e.isLink():
		s.Kind, s.Hash = 0, fmt.Sprintf("special %o", f.e.st.Mode) // sockets, devices: never the disk's
	}
	return s
}

// planItem is one path of the new tree.
type planItem struct {
	Path string
	From source
	Src  string  // fromFolder: the folder path linked
	D    *Entry  // the disk's entry (fromDisk; metadata of a made folder)
	F    *fstate // the folder's entry that was at Path (its owner and xattrs are kept)
	Mode uint32  // permission bits the new entry gets
	Hash string  // its expected content (files and links)
}

// planner holds a plan being made.
type planner struct {
	base     map[string]*syncPath
	folder   map[string]*fstate
	disk     map[string]*Entry
	diskHash func(*Entry) (string, error)
	at       time.Time

	out   map[string]*planItem
	wb    WriteBack
	dside map[string]*side // the disk's side of each path, for the next record
}

// makePlan decides the new tree (see the comment above). diskHash hashes a
// disk entry's bytes (read from the store) and is called only when the
// entry's object differs from the record's.
func makePlan(rec *syncRecord, folder map[string]*fstate, disk []Entry, diskHash func(*Entry) (string, error), at time.Time) ([]*planItem, map[string]*side, WriteBack, error) {
	p := &planner{base: map[string]*syncPath{}, folder: folder, disk: make(map[string]*Entry, len(disk)), diskHash: diskHash, at: at,
		out: map[string]*planItem{}, dside: map[string]*side{}}
	if rec != nil {
		p.base = rec.byPath()
	}
	paths := map[string]bool{}
	for i := range disk {
		d := &disk[i]
		if d.HardLink != "" {
			// A second name of a file: its contents are the first's (the
			// folder gets its own copy where the disk changed it).
			if t := p.disk[d.HardLink]; t != nil && t.Kind == KindFile {
				r := *t
				r.Path = d.Path
				d = &r
			}
		}
		p.disk[d.Path] = d
		paths[d.Path] = true
	}
	for k := range folder {
		paths[k] = true
	}
	for k := range p.base {
		paths[k] = true
	}
	sorted := make([]string, 0, len(paths))
	for k := range paths {
		sorted = append(sorted, k)
	}
	sort.Slice(sorted, func(i, j int) bool { return pathLess(sorted[i], sorted[j]) })
	for _, k := range sorted {
		if err := p.decide(k); err != nil {
			return nil, nil, WriteBack{}, err
		}
	}
	p.fixParents()
	items := make([]*planItem, 0, len(p.out))
	for _, it := range p.out {
		items = append(items, it)
	}
	sort.Slice(items, func(i, j int) bool { return pathLess(items[i].Path, items[j].Path) })
	sort.Slice(p.wb.Conflicts, func(i, j int) bool { return pathLess(p.wb.Conflicts[i].Path, p.wb.Conflicts[j].Path) })
	return items, p.dside, p.wb, nil
}

// diskSide is the disk's version of path k with its content hash.
func (p *planner) diskSide(k string, base *side) (*side, error) {
	d := p.disk[k]
	if d == nil {
		return nil, nil
	}
	s := &side{Kind: d.Kind, Mode: d.Mode, Obj: d.Obj.String()}
	switch {
	case d.Kind == KindSymlink:
		s.Hash = linkHash(d.Link)
	case d.Kind == KindFile && base != nil && base.Kind == KindFile && base.Obj != "" && base.Obj == s.Obj:
		s.Hash = base.Hash // objects never change: same object, same bytes
	case d.Kind == KindFile:
		h, err := p.diskHash(d)
		if err != nil {
			return nil, fmt.Errorf("read the disk's %s: %w", k, err)
		}
		s.Hash = h
	}
	p.dside[k] = s
	return s, nil
}

func (p *planner) decide(k string) error {
	var base, lastF *side
	if r := p.base[k]; r != nil {
		base, lastF = r.D, r.F
	}
	f := p.folder[k]
	fs := f.side()
	ds, err := p.diskSide(k, base)
	if err != nil {
		return err
	}
	d := p.disk[k]
	fDiff, dDiff := !fs.sameContent(base), !ds.sameContent(base)
	diskChmod := ds != nil && base != nil && ds.Kind == base.Kind && ds.Mode != base.Mode
	keepF := func() {
		if f == nil {
			return
		}
		it := &planItem{Path: k, From: fromFolder, Src: k, F: f, Mode: fs.Mode, Hash: f.hash}
		if diskChmod && ds.Kind == fs.Kind {
			it.Mode = ds.Mode
		}
		if f.e.isDir() {
			it.From, it.D = makeDir, d
		}
		p.out[k] = it
	}
	takeD := func() {
		if d == nil {
			return
		}
		it := &planItem{Path: k, From: fromDisk, D: d, Mode: ds.Mode, Hash: ds.Hash}
		if f != nil && fs.Kind == ds.Kind {
			it.F = f
			if !diskChmod && base != nil {
				it.Mode = fs.Mode // the folder's chmod stays
			}
		}
		if d.Kind == KindDir {
			it.From = makeDir
		}
		p.out[k] = it
	}
	switch {
	case k == ".":
		keepF()
		if f == nil {
			takeD()
		}
	case !dDiff:
		keepF()
		if f != nil && fDiff {
			p.wb.KeptOutside++
		}
		if f == nil && lastF != nil && ds != nil {
			p.wb.KeptOutside++
			p.wb.DeletedOutside = append(p.wb.DeletedOutside, k)
		}
	case !fDiff:
		takeD()
	case ds.sameContent(fs):
		keepF() // both made the same change
	case d == nil:
		keepF()
		p.conflict(k, "", "deleted on the disk, changed in the folder: the folder's version is kept")
	case f == nil:
		takeD()
		p.conflict(k, "", "deleted in the folder, changed on the disk: the disk's version is written back")
	case f.e.isDir():
		keepF() // a folder keeps its name; the disk's file or link is the copy
		c := p.copyName(k)
		p.out[c] = &planItem{Path: c, From: fromDisk, D: d, Mode: ds.Mode, Hash: ds.Hash}
		p.conflict(k, c, "changed on both sides: the folder's version is kept under the name, the disk's is the copy")
	default:
		takeD()
		c := p.copyName(k)
		p.out[c] = &planItem{Path: c, From: fromFolder, Src: k, F: f, Mode: fs.Mode, Hash: f.hash}
		p.conflict(k, c, "changed on both sides: the disk's version is under the name, the folder's is the copy")
	}
	return nil
}

func (p *planner) conflict(k, c, what string) {
	p.wb.Conflicts = append(p.wb.Conflicts, Conflict{Path: k, Copy: c, What: what})
}

// copyName is a conflict copy's path not used by anything else.
func (p *planner) copyName(k string) string {
	for n := 1; ; n++ {
		c := conflictName(k, p.at, n)
		if _, used := p.out[c]; used {
			continue
		}
		if _, used := p.folder[c]; used {
			continue
		}
		if _, used := p.disk[c]; used {
			continue
		}
		return c
	}
}

// fixParents makes every kept path's parents folders of the new tree: a
// missing parent (deleted on one side) is made again, and a file or link
// where a folder must be moves aside as a conflict copy.
func (p *planner) fixParents() {
	keys := make([]string, 0, len(p.out))
	for k := range p.out {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return pathLess(keys[i], keys[j]) })
	for _, k := range keys {
		for q := k; q != "."; {
			q, _ = splitRel(q)
			it := p.out[q]
			if it != nil && it.isDir() {
				break
			}
			if it != nil {
				c := p.copyName(q)
				it.Path = c
				p.out[c] = it
				p.conflict(q, c, "a folder on one side, a file on the other: the folder keeps the name")
			}
			nd := &planItem{Path: q, From: makeDir, Mode: 0o755}
			if f := p.folder[q]; f != nil && f.e.isDir() {
				nd.F, nd.Mode = f, uint32(f.e.st.Mode)&0o7777
			} else if d := p.disk[q]; d != nil && d.Kind == KindDir {
				nd.D, nd.Mode = d, d.Mode
			}
			p.out[q] = nd
		}
	}
}

func (it *planItem) isDir() bool {
	switch it.From {
	case makeDir:
		return true
	case fromDisk:
		return it.D.Kind == KindDir
	}
	return it.F != nil && it.F.e.isDir()
}
