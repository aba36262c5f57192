//go:build darwin || linux

package changefeed

import (
	"os"
	"strings"
	"syscall"
	"time"
)

// FSEvents event flags (FSEvents.h).
const (
	eventMustScanSubs = 0x01
	eventUserDropped  = 0x02
	eventKernDropped  = 0x04
	eventIdsWrapped   = 0x08
	eventRootChanged  = 0x20
	eventUnmount      = 0x80
	eventItemIsFile   = 0x10000
	eventIsHardlink   = 0x100000 // kFSEventStreamEventFlagItemIsHardlink
)

// fsRoots are the forms of one disk's top folder that FSEvents may name
// it by: the path it was opened with and the kernel's own (F_GETPATH at
// open: /System/Volumes/Data/Users/… for a folder under /Users).
type fsRoots []string

// rel is p relative to the top folder ("." for it), or false when p is
// outside every form of it.
func (r fsRoots) rel(p string) (string, bool) {
	for _, root := range r {
		switch {
		case p == root:
			return ".", true
		case strings.HasPrefix(p, root+"/"):
			return p[len(root)+1:], true
		}
	}
	return "", false
}

// fsevent records one FSEvents event at absolute path p: a drop, a rescan
// asked for, the top folder changed or unmounted, or a path outside the
// disk (the feed cannot tell what it stands for) lose the feed; a file
// given another name (a hard link made, flagged ItemIsHardlink) is
// recorded in Linked with its folder's change.
func (p *pending) fsevent(roots fsRoots, path string, flags uint32, at time.Time) {
	switch {
	case flags&(eventUserDropped|eventKernDropped) != 0:
		p.lose("FSEvents dropped events")
		return
	case flags&eventMustScanSubs != 0:
		p.lose("FSEvents asked for a rescan of " + path)
		return
	case flags&(eventRootChanged|eventUnmount) != 0:
		p.lose("the disk's top folder changed or was unmounted")
		return
	case flags&eventIdsWrapped != 0:
		return
	}
	rel, ok := roots.rel(path)
	switch {
	case !ok:
		p.lose("FSEvents named " + path + ", outside the disk's top folder " + strings.Join(roots, " or "))
		return
	case rel == ".":
		p.add(".", "", at)
		return
	}
	dir, name := splitRelPath(rel)
	if flags&eventIsHardlink != 0 && flags&eventItemIsFile != 0 {
		if ino, ok := linkedFile(path); ok {
			p.link(ino)
		}
	}
	p.add(dir, name, at)
}

// linkedFile is the inode of the regular file at path when it has more
// than one name.
func linkedFile(path string) (uint64, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || uint64(st.Nlink) < 2 {
		return 0, false
	}
	return uint64(st.Ino), true
}
