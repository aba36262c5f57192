package snapshot

import (
	"sync/atomic"

	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// lookIn is lookAt limited to what a change feed named since the scan:
// dirty are the folders in which something changed. Only their own
// entries and the paths in them are stat'ed (and the top folder's names
// listed when it is one): anything else changed would have named its
// folder. A save by its feed looks so at each round's end, in time that
// follows what changed, not the disk.
func lookIn(root string, items []tree.Scanned, dirty map[string]struct{}, most int, caches bool, stop *atomic.Bool) (*snapstore.PathList, bool, error) {
	l, err := newLooker(root, items, most, caches, stop)
	if err != nil {
		return nil, false, err
	}
	defer unix.Close(l.top)
	top := l.top
	if len(dirty) == 0 {
		return l.diffs, false, nil
	}
	if _, ok := dirty["."]; ok {
		if err := l.topNames(root); err != nil {
			return nil, false, err
		}
	}
	for i := 1; i < len(items); i++ {
		if stop != nil && stop.Load() {
			return nil, false, errStopped
		}
		it := &items[i]
		parent, _ := tree.SplitRel(it.Rel)
		_, inDirty := dirty[parent]
		_, self := dirty[it.Rel]
		if !inDirty && !self {
			continue
		}
		// By path from the top: a folder on the way replaced (by a link,
		// say) is a change in its parent, which is looked at too.
		var st unix.Stat_t
		err := unix.Fstatat(top, it.Rel, &st, unix.AT_SYMLINK_NOFOLLOW)
		now := tree.IdentOf(&st)
		switch {
		case err != nil || now.Mode&unix.S_IFMT != it.Id.Mode&unix.S_IFMT:
			l.differ(it.Rel, true)
		case now != it.Id:
			l.differ(it.Rel, now.Mode&unix.S_IFMT == unix.S_IFDIR)
		}
	}
	return l.diffs, l.moved.Load(), nil
}
