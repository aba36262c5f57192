package tree

import (
	"errors"
	"strconv"
)

// ErrDamaged: a source is not what its entry says (a pack shorter than
// its files, an object that is not a regular file); the store that named
// it is damaged.
var ErrDamaged = errors.New("damaged snapshot manifest")

// ObjRef is where a file's bytes are to be read, relative to the folder a
// build reads from (a store's objects/, or a plain tree): a whole file, or
// (Packed) Size bytes at Off of a pack.
type ObjRef struct {
	Rel    string
	Off    int64
	Size   int64
	Packed bool
}

// SamePath is the source of each entry of a plain tree: its own path.
func SamePath(e Entry) (ObjRef, error) { return ObjRef{Rel: e.Path}, nil }

// ObjName is where an entry's bytes are kept; the zero value is none.
type ObjName struct {
	Save   string // the save that wrote the object (its objects folder)
	Num    uint32 // the object's number in that folder
	Off    int64  // Packed: where the file's bytes start
	Packed bool
}

// None reports whether o names no object.
func (o ObjName) None() bool { return o == ObjName{} }

// String is o as text: "SAVE/N", or "SAVE/N@OFF" for a packed file; ""
// for none. Mirror records keep it to tell objects apart.
func (o ObjName) String() string {
	if o.None() {
		return ""
	}
	s := o.Save + "/" + strconv.FormatUint(uint64(o.Num), 10)
	if o.Packed {
		s += "@" + strconv.FormatInt(o.Off, 10)
	}
	return s
}
