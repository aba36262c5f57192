package mirror

import "golang.org/x/sys/unix"

// Kind is the type of a tree entry.
type Kind uint8

// Entry kinds.
const (
	KindFile Kind = iota + 1
	KindDir
	KindSymlink
)

// Entry is one path of a saved tree, as recorded in a manifest.
type Entry struct {
	Path  string            // slash-separated, relative to the root; "." is the root
	Kind  Kind              // file, dir or symlink
	Mode  uint32            // permission bits with setuid, setgid, sticky (unix)
	Size  int64             // bytes (files)
	MTime int64             // modification time, ns since the epoch
	Link  string            // symlink target
	Xattr map[string][]byte // extended attributes
	Obj   string            // object holding a file's contents, relative to objects/
}

// ident is what tells an unchanged file from a changed one without reading
// it: any write, chmod, chown, xattr change or replacement changes one of these.
type ident struct {
	Ino   uint64
	CTime int64
	MTime int64
	Size  int64
	Mode  uint32
}

func identOf(st *unix.Stat_t) ident {
	return ident{Ino: uint64(st.Ino), CTime: tsNano(statCtime(st)), MTime: tsNano(statMtime(st)),
		Size: st.Size, Mode: uint32(st.Mode)}
}

func tsNano(ts unix.Timespec) int64 { return int64(ts.Sec)*1e9 + int64(ts.Nsec) }

// MarkerName is the file on a kept disk that ties it to its store.
const MarkerName = ".rambar-id"

// kindOf is the entry kind of a stat mode.
func kindOf(mode uint32) Kind {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return KindDir
	case unix.S_IFLNK:
		return KindSymlink
	}
	return KindFile
}
