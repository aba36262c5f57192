package snapstore

import (
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// Lacks lists the paths of snap (entries in tree order) that folder
// (the entries of the folder as loaded) lacks, or holds an older version
// of: a file, link or FIFO whose modification time in snap is later and
// that differs there in kind, size or time. Folders are named only when
// missing. It is how a Mirror load finds what only an old snapshot holds
// (keeper's unwritten.go).
func Lacks(snap, folder []tree.Entry, max int) PathList {
	l := PathList{Max: max}
	j := 0
	for i := range snap {
		e := &snap[i]
		for j < len(folder) && tree.CmpPath(folder[j].Path, e.Path) < 0 {
			j++
		}
		if j == len(folder) || folder[j].Path != e.Path {
			l.Add(e.Path)
			continue
		}
		f := &folder[j]
		if e.Kind == tree.KindDir && f.Kind == tree.KindDir {
			continue
		}
		if later(e.MTime, f.MTime) && (e.Kind != f.Kind || e.Size != f.Size || e.MTime != f.MTime) {
			l.Add(e.Path)
		}
	}
	return l
}

// later reports whether a is after b.
func later(a, b unix.Timespec) bool {
	return a.Sec > b.Sec || a.Sec == b.Sec && a.Nsec > b.Nsec
}
