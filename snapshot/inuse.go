package snapshot

import (
	"slices"

	"rambar/snapstore"
	"rambar/tree"
)

// inUseOf is what the paths that moved during a save say of it.
func inUseOf(moved *snapstore.PathList) *snapstore.InUse {
	u := &snapstore.InUse{Count: moved.N, Paths: append([]string(nil), moved.Paths...)}
	sortPaths(u.Paths)
	u.Paths = slices.Compact(u.Paths)
	u.Count = max(u.Count, len(u.Paths))
	return u
}

// sortPaths sorts paths in pathLess order.
func sortPaths(paths []string) {
	slices.SortFunc(paths, tree.CmpPath)
}
