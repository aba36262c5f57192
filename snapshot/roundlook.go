package snapshot

import (
	"sync/atomic"

	"rambar/snapstore"
	"rambar/tree"
)

// look is a round's look at the disk (lookAt), in the background, or
// left to the round's still watch while that can answer for it.
type look struct {
	run   func(stop *atomic.Bool) (*snapstore.PathList, bool, error)
	still *tree.StillWatch // not started: asked at wait first
	stop  atomic.Bool
	done  chan struct{}
	diffs *snapstore.PathList
	moved bool
	err   error
}

// startLook starts looking at the disk, comparing it with items, unless
// the still watch saw nothing move since the scan: then the look is made
// only if the watch cannot answer at the end (the disk moved meanwhile).
func (ls *liveSave) startLook(items []tree.Scanned) *look {
	lk := &look{done: make(chan struct{}), run: func(stop *atomic.Bool) (*snapstore.PathList, bool, error) {
		return ls.look(items, stop)
	}}
	if ls.looked {
		lk.diffs = &snapstore.PathList{}
		close(lk.done)
		return lk
	}
	if ls.still.Still() {
		lk.still = ls.still
		return lk
	}
	lk.start()
	return lk
}

// start runs the look in the background.
func (lk *look) start() {
	go func() {
		defer close(lk.done)
		lk.diffs, lk.moved, lk.err = lk.run(&lk.stop)
	}()
}

// wait ends the look (at once, unless want) and, when wanted, adds to r
// the paths it found added, removed or changed. Left to the still watch,
// it is made now only when the watch saw something.
func (lk *look) wait(r *round, want bool) error {
	if lk.still != nil {
		if !want || lk.still.Still() {
			return nil
		}
		lk.still = nil
		lk.start()
	}
	if !want {
		lk.stop.Store(true)
	}
	<-lk.done
	if !want {
		return nil
	}
	if lk.err != nil {
		return lk.err
	}
	for _, p := range lk.diffs.Paths {
		r.moved.Add(p)
	}
	r.moved.N += lk.diffs.N - len(lk.diffs.Paths)
	r.reshaped = r.reshaped || lk.moved
	return nil
}
