package tree

// moveLinks keeps prev's hard-link groups when no file of several names
// was read, made or given or losing a name (relinked empty): every name
// of such a file was then taken from prev as it was, with the name its
// group links to, so only the places move (none, when no path came or
// went). It sets the next rescan's firsts, and reports false, grouping
// nothing, should a name's target not be in out. A tree of 400,000
// hard-linked names (a package store and node_modules) is then not
// grouped again by inode, nor its names' targets compared, at each save
// by the feed.
func (r *rescan) moveLinks() bool {
	moved := len(r.out) != len(r.prev)
	for i := 0; i < len(r.from) && !moved; i++ {
		moved = r.from[i] != int32(i)
	}
	if !moved {
		r.res.Firsts = r.firsts
		return true
	}
	at := make([]int32, len(r.prev))
	for k := range at {
		at[k] = -1
	}
	for i, k := range r.from {
		if k >= 0 {
			at[k] = int32(i)
		}
	}
	firsts := make(map[int32]bool, len(r.firsts))
	for k := range r.firsts {
		if at[k] < 0 {
			return false
		}
		firsts[at[k]] = true
	}
	for i := range r.out {
		if l := r.out[i].HardLink; l > 0 && (r.fresh[i] || at[l-1] < 0) {
			return false
		}
	}
	for i := range r.out {
		if l := r.out[i].HardLink; l > 0 {
			r.out[i].HardLink = at[l-1] + 1
		}
	}
	r.res.Firsts = firsts
	return true
}
