package tree

import (
	"golang.org/x/sys/unix"

	"rambar/internal/diskid"
)

// Kind is the type of a tree entry.
type Kind uint8

// Entry kinds.
const (
	KindFile Kind = iota + 1
	KindDir
	KindSymlink
	KindFIFO
)

// Entry is one path of a saved tree, as recorded in a manifest.
type Entry struct {
	Path  string            // slash-separated, relative to the root; "." is the root
	Kind  Kind              // file, dir, symlink or FIFO
	Mode  uint32            // permission bits with setuid, setgid, sticky (unix)
	Size  int64             // bytes (files)
	MTime unix.Timespec     // modification time
	ATime unix.Timespec     // access time
	UID   uint32            // owner
	GID   uint32            // group
	Link  string            // symlink target
	Xattr map[string][]byte // extended attributes
	Obj   ObjName           // object holding a file's contents (none: not a file, or a hard link)
	// HardLink, for a file, is the path of the file (earlier in the tree)
	// that this one is a hard link to; such an entry has no object.
	HardLink string
	// Extents, for a sparse file, are the ranges that hold data; its
	// object holds only their bytes, one after another. nil: all of it.
	Extents []Extent

	NoOwner bool  // UID and GID were not recorded (version 1 and 2 manifests)
	Sparse  bool  // seen by the scan to hold fewer blocks than bytes
	alloc   int64 // sparse: the bytes its blocks hold
}

// Extent is a range of a sparse file that holds data.
type Extent struct {
	Off, Len int64
}

// Stored is how many bytes of e its object holds.
func (e *Entry) Stored() int64 {
	if e.Extents == nil {
		return e.Size
	}
	var n int64
	for _, x := range e.Extents {
		n += x.Len
	}
	return n
}

// Allocated is about how many bytes e takes on a disk: its data, not its
// holes; a second hard link to a file takes none.
func (e *Entry) Allocated() int64 {
	switch {
	case e.Kind != KindFile || e.HardLink != "":
		return 0
	case e.Extents != nil:
		return e.Stored()
	case e.Sparse:
		return e.alloc
	}
	return e.Size
}

// Ident is what tells an unchanged file from a changed one without reading
// it: any write, chmod, chown, link, xattr change or replacement changes
// one of these.
type Ident struct {
	Ino   uint64
	CTime int64
	MTime int64
	Size  int64
	Mode  uint32
}

// Compare is the one identity comparison, with what it leaves out named
// (as restic's fileChanged and syncthing's FileInfoComparison do): each
// option is a reason a field moves while the file's contents do not.
type Compare struct {
	// NoCTime: a link made to the file or removed (by an earlier
	// write-back too, or a rename of another name of it) moves its ctime.
	NoCTime bool
	// TopFolder: the top folder's times and size change whenever anything
	// is made or removed in it, RAMBar's own scratch folders included
	// (ramdisk.ScratchPrefix), so there they alone do not make a disk
	// unsaved: what it holds is compared entry by entry.
	TopFolder bool
}

// Same reports whether a and b are one file, unchanged, as far as their
// identities tell under c.
func (c Compare) Same(a, b Ident) bool {
	if c.NoCTime || c.TopFolder {
		a.CTime = b.CTime
	}
	if c.TopFolder {
		a.MTime, a.Size = b.MTime, b.Size
	}
	return a == b
}

// SameIdent compares two identities of path rel: Compare, the top folder's
// times and size left out (Compare.TopFolder).
func SameIdent(rel string, a, b Ident) bool { return Compare{TopFolder: rel == "."}.Same(a, b) }

// IdentOf is the identity of the path st describes.
func IdentOf(st *unix.Stat_t) Ident {
	return Ident{Ino: uint64(st.Ino), CTime: TsNano(statCtime(st)), MTime: TsNano(StatMtime(st)),
		Size: st.Size, Mode: uint32(st.Mode)}
}

// TsNano is ts in ns since the epoch (wrapping past 2262: only used to
// tell identities apart).
func TsNano(ts unix.Timespec) int64 { return int64(ts.Sec)*1e9 + int64(ts.Nsec) }

// MarkerName is the file an older RAMBar wrote at a kept disk's root to
// tie it to its store. RAMBar no longer writes it (the data folder's record
// and the mark, an extended attribute, do: internal/diskid); a disk that
// still has one is taken on and the file removed (Holds). At a disk's root
// it is never contents: not saved, not loaded from a mirror folder.
const MarkerName = ".rambar-id"

// DropMarkAttrs removes RAMBar's mark (internal/diskid) from the
// attributes of a disk's root folder: it is RAMBar's, never contents, so
// no save keeps it, and no restore, load or write-back copies it.
func DropMarkAttrs(x map[string][]byte) {
	for _, m := range diskid.MarkAttrs {
		delete(x, m)
	}
}

// KindOf is the entry kind of a stat mode (sockets and devices are none).
func KindOf(mode uint32) Kind {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return KindDir
	case unix.S_IFLNK:
		return KindSymlink
	case unix.S_IFIFO:
		return KindFIFO
	case unix.S_IFREG:
		return KindFile
	}
	return 0
}
