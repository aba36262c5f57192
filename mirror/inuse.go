package mirror

import (
	"rambar/snapstore"
	"slices"
)

// CurrentInUse says whether the current snapshot of disk name was taken
// while in use: its label, nil when it was consistent or nothing is saved.
// It reads two small files, so the menu may ask at every refresh.
func (k *Keeper) CurrentInUse(name string) (*snapstore.InUse, error) {
	st, err := k.State(name)
	if err != nil {
		return nil, err
	}
	s := k.store(st)
	cur, err := s.Current()
	if err != nil || cur == "" {
		return nil, err
	}
	return s.InUse(cur)
}

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
	slices.SortFunc(paths, cmpPath)
}
