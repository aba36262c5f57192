package mirror

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// An entry's Obj names where its bytes are kept, relative to objects/:
// object file N written by save SAVE ("SAVE/N" as text), holding that one
// file's bytes, or (Packed) the range of pack N starting at Off, the
// entry's stored bytes long ("SAVE/N@OFF"; a small file packed with
// others). Version 4 manifests keep it as numbers (codec4.go); older ones
// as that text.

// objRef is where a file's bytes are to be read, relative to the folder a
// build reads from (a store's objects/, or a plain tree): a whole file, or
// (Packed) Size bytes at Off of a pack.
type objRef struct {
	Rel    string
	Off    int64
	Size   int64
	Packed bool
}

// samePath is the source of each entry of a plain tree: its own path.
func samePath(e Entry) (objRef, error) { return objRef{Rel: e.Path}, nil }

// objName is where an entry's bytes are kept; the zero value is none.
type objName struct {
	Save   string // the save that wrote the object (its objects folder)
	Num    uint32 // the object's number in that folder
	Off    int64  // Packed: where the file's bytes start
	Packed bool
}

// none reports whether o names no object.
func (o objName) none() bool { return o == objName{} }

// String is o as text: "SAVE/N", or "SAVE/N@OFF" for a packed file; ""
// for none. Mirror records keep it to tell objects apart.
func (o objName) String() string {
	if o.none() {
		return ""
	}
	s := o.Save + "/" + strconv.FormatUint(uint64(o.Num), 10)
	if o.Packed {
		s += "@" + strconv.FormatInt(o.Off, 10)
	}
	return s
}

// check refuses an object that is not inside objects/.
func (o objName) check() error {
	if !validID(o.Save) || o.Off < 0 || (!o.Packed && o.Off != 0) {
		return fmt.Errorf("bad object %q", o.String())
	}
	return nil
}

// parseObj reads an object's text form (version 1 to 3 manifests).
func parseObj(obj string) (objName, error) {
	rest, off, packed := strings.Cut(obj, "@")
	save, num, ok := strings.Cut(rest, "/")
	n, err := strconv.ParseUint(num, 10, 32)
	if !ok || err != nil || !validID(save) {
		return objName{}, fmt.Errorf("bad object %q", obj)
	}
	o := objName{Save: save, Num: uint32(n), Packed: packed}
	if packed {
		if o.Off, err = strconv.ParseInt(off, 10, 64); err != nil || o.Off < 0 {
			return objName{}, fmt.Errorf("bad packed object %q", obj)
		}
	}
	return o, nil
}

// objRef is where e's bytes are in the store, relative to objects/.
func objRefOf(e Entry) (objRef, error) {
	o := e.Obj
	if err := o.check(); err != nil {
		return objRef{}, fmt.Errorf("%w: %v", errBadManifest, err)
	}
	r := objRef{Rel: o.Save + "/" + strconv.FormatUint(uint64(o.Num), 10)}
	if o.Packed {
		if e.Size < 0 {
			return objRef{}, fmt.Errorf("bad packed object %q of size %d: %w", o.String(), e.Size, errBadManifest)
		}
		r.Off, r.Size, r.Packed = o.Off, e.stored(), true
	}
	return r, nil
}

// refsOf lists, per save, the numbers of the objects entries use, each
// once, in order.
func refsOf(entries []Entry) map[string][]uint32 {
	refs := map[string][]uint32{}
	for i := range entries {
		if o := &entries[i].Obj; !o.none() {
			refs[o.Save] = append(refs[o.Save], o.Num)
		}
	}
	for s, nums := range refs {
		slices.Sort(nums)
		refs[s] = slices.Compact(nums)
	}
	return refs
}

// Small files a save copies are packed: written one after another
// into a few pack objects instead of one object each, since creating a
// file on the store's disk costs far more than writing a few KiB.
const (
	packMax   = 64 << 10 // files up to this size are packed
	packBytes = 8 << 20  // a pack is closed past this size
	packFiles = 4096     // or with this many files, so that a tree of tiny files makes packs enough for the workers
	// pushSize: an object this large is pushed to the disk (pushFile) as
	// it closes, as packs are, so that gigabytes of dirty pages do not
	// pile up for the final flush.
	pushSize = packBytes
)

// packGroups splits the small files of toCopy into packs (each at least 2
// files, at most about packBytes or packFiles files) and returns them and the other files.
func packGroups(toCopy []*Entry) (packs [][]*Entry, single []*Entry) {
	var small []*Entry
	for _, e := range toCopy {
		if e.Size <= packMax {
			small = append(small, e)
		} else {
			single = append(single, e)
		}
	}
	var cur []*Entry
	var size int64
	for _, e := range small {
		cur = append(cur, e)
		if size += e.Size; size >= packBytes || len(cur) >= packFiles {
			packs, cur, size = append(packs, cur), nil, 0
		}
	}
	if len(cur) > 0 {
		packs = append(packs, cur)
	}
	// A pack of one is just an object.
	for i := 0; i < len(packs); i++ {
		if len(packs[i]) == 1 {
			single = append(single, packs[i][0])
			packs = append(packs[:i], packs[i+1:]...)
			i--
		}
	}
	return packs, single
}

// writePack copies the files of group from the tree root into a new pack
// object num of save in the folder objs, one after another (a sparse one's
// data only), setting each entry's Obj, Size and Extents, and pushes it to
// the disk (pushFile) before closing it.
func writePack(root, objs *dirTree, save string, num uint32, group []*Entry) (int64, error) {
	name := strconv.FormatUint(uint64(num), 10)
	out, _, err := objs.create(name, 0o600, -1, false)
	if err != nil {
		return 0, err
	}
	var off int64
	err = func() error {
		for _, e := range group {
			in, err := root.openFile(e.Path)
			if err != nil {
				return err
			}
			n, err := saveData(out, in, e, false)
			unix.Close(in)
			if err != nil {
				return noSpace(fmt.Errorf("copy %s to %s: %w", root.path(e.Path), objs.path(name), err))
			}
			e.Obj = objName{Save: save, Num: num, Off: off, Packed: true}
			off += n
		}
		return pushFile(out)
	}()
	if cerr := unix.Close(out); err == nil && cerr != nil {
		err = noSpace(fmt.Errorf("write %s: %w", objs.path(name), cerr))
	}
	return off, err
}
