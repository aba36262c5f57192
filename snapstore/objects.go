package snapstore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rambar/tree"
)

// An entry's Obj names where its bytes are kept, relative to objects/:
// object file N written by save SAVE ("SAVE/N" as text), holding that one
// file's bytes, or (Packed) the range of pack N starting at Off, the
// entry's stored bytes long ("SAVE/N@OFF"; a small file packed with
// others). Version 4 manifests keep it as numbers (codec4.go); older ones
// as that text.

// CheckObj refuses an object that is not inside objects/.
func CheckObj(o tree.ObjName) error {
	if !ValidID(o.Save) || o.Off < 0 || (!o.Packed && o.Off != 0) {
		return fmt.Errorf("bad object %q", o.String())
	}
	return nil
}

// ParseObj reads an object's text form (version 1 to 3 manifests).
func ParseObj(obj string) (tree.ObjName, error) {
	rest, off, packed := strings.Cut(obj, "@")
	save, num, ok := strings.Cut(rest, "/")
	n, err := strconv.ParseUint(num, 10, 32)
	if !ok || err != nil || !ValidID(save) {
		return tree.ObjName{}, fmt.Errorf("bad object %q", obj)
	}
	o := tree.ObjName{Save: save, Num: uint32(n), Packed: packed}
	if packed {
		if o.Off, err = strconv.ParseInt(off, 10, 64); err != nil || o.Off < 0 {
			return tree.ObjName{}, fmt.Errorf("bad packed object %q", obj)
		}
	}
	return o, nil
}

// ObjRefOf is where e's bytes are in the store, relative to objects/.
func ObjRefOf(e tree.Entry) (tree.ObjRef, error) {
	o := e.Obj
	if err := CheckObj(o); err != nil {
		return tree.ObjRef{}, fmt.Errorf("%w: %v", ErrBadManifest, err)
	}
	r := tree.ObjRef{Rel: o.Save + "/" + strconv.FormatUint(uint64(o.Num), 10)}
	if o.Packed {
		if e.Size < 0 {
			return tree.ObjRef{}, fmt.Errorf("bad packed object %q of size %d: %w", o.String(), e.Size, ErrBadManifest)
		}
		r.Off, r.Size, r.Packed = o.Off, e.Stored(), true
	}
	return r, nil
}

// RefsOf lists, per save, the numbers of the objects entries use, each
// once, in order.
func RefsOf(entries []tree.Entry) map[string][]uint32 {
	refs := map[string][]uint32{}
	for i := range entries {
		if o := &entries[i].Obj; !o.None() {
			refs[o.Save] = append(refs[o.Save], o.Num)
		}
	}
	for s, nums := range refs {
		slices.Sort(nums)
		refs[s] = slices.Compact(nums)
	}
	return refs
}
