package snapshot

import (
	"context"
	"time"
)

// A disk being remade wholesale (node_modules removed and installed
// again, another branch checked out, an archive unpacked) changes
// thousands of paths a second. A round planned meanwhile cannot hold
// still: its look finds them moved, and its plan (every remade file
// compared with its saved bytes or copied) is thrown away, while the
// round after the churn waits for it. So in a save by the feed, a round
// whose scan differs from the saved disk in churnPaths paths or more is
// not planned when the disk has changed again since that scan (the feed
// holds changes, or lost some): the save waits for the disk to calm
// (churnQuiet without a change, at most churnWait) and scans again. A
// program that writes a few files all the time is not a churn: its rounds
// are small, and steady takes (steady.go) hold them. The last round
// (saveRounds) is always planned, so a disk that never calms still gets
// its snapshot taken while in use.
const (
	churnPaths = 1000
	churnQuiet = 500 * time.Millisecond
	churnWait  = 30 * time.Second
)

// roundPlanned, when set (by tests), is called as round n is planned.
var roundPlanned func(n int)

// doomed reports whether the next round would be costly and thrown away
// (see above).
func (ls *liveSave) doomed() bool {
	if ls.follow == nil || ls.pre == nil || ls.pre.Changed+len(ls.pre.Gone) < churnPaths {
		return false
	}
	paths, lost, _ := ls.follow.feed.Held()
	return paths > 0 || lost
}

// calm waits until the feed has heard no change for churnQuiet, or for
// churnWait; the error is ctx's.
func (ls *liveSave) calm(ctx context.Context) error {
	deadline := time.Now().Add(churnWait)
	for {
		_, _, last := ls.follow.feed.Held()
		now := time.Now()
		if last.IsZero() || now.Sub(last) >= churnQuiet || !now.Before(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(churnQuiet-now.Sub(last), deadline.Sub(now))):
		}
	}
}
