package snapshot

import (
	"context"
	"sync/atomic"
	"time"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// A program that never stops writing (a log appended every 10 ms, a
// database committing as fast as it can) keeps a save's rounds from ever
// holding still (settle.go): each round's look finds its files changed
// again. Yet between two of its writes the files are still for a few
// milliseconds, long enough to copy a few MB. So once a round finds paths
// moved, the save takes the folders they are in as one group, at one
// moment (steady), before it pauses for another round:
//
//  1. The change clock is read (t0), then the group's folders are read
//     again (tree.Rescan: the rest of the scan is kept as it was).
//  2. Every file of the group not already copied as it is now is copied,
//     into memory (steadymem.go: a few MB read in a millisecond), each as
//     a version that held still while copied (copier.held: the same
//     identity before and after, read after a write barrier and once the
//     change clock passed its ctime). A version newer than step 1 found
//     is taken too.
//  3. Every path of the group, and each folder, is stat'ed again: each
//     must be as copied (a file: any change since its copy began shows in
//     its identity) or as step 1 found it and changed before t0 (so that
//     any change after step 1 would have shown; the top folder's names
//     are listed again: its times move for RAMBar's own files). Then
//     every path of the group was as taken at the moment step 3 began.
//  4. The rest of the disk is looked at (the round's look): each path must
//     still be as the scan found it, so it too was as copied at that
//     moment. A folder outside the group that moved joins it for the next
//     try.
//
// The snapshot is then the disk as it was at one moment: a database and
// its journal, WAL and log match. It is committed as a round would (a
// round that takes the group's copies and needs no look), so the next save
// by the feed goes on from it. A group with a file of several names, one
// mapped shared and writable, or more than steadyMax bytes to copy is not
// taken this way (the rounds go on). The copies of the try that took the
// group are written to the store before it commits.

const (
	// steadyTakes and steadyTakeFor bound the tries of a steady take.
	steadyTakes   = 100
	steadyTakeFor = 1500 * time.Millisecond
	// steadySaveFor bounds the steady takes of one save, all rounds.
	steadySaveFor = 3 * time.Second
	// steadyMax is the most a try copies: more takes too long to fit
	// between two writes of a program that never stops.
	steadyMax = 256 << 20
)

// steady tries to commit round r's disk, whose paths moved, by taking the
// folders they are in as one group at one moment (see above); ok reports
// that it did, res then being the save's result.
func (ls *liveSave) steady(ctx context.Context, r *round) (res Result, ok bool, err error) {
	if r.moved.N == 0 || r.moved.N > len(r.moved.Paths) || ls.steadySpent >= steadySaveFor {
		return Result{}, false, nil
	}
	dirty, dirs := map[string]struct{}{}, foldersOf(r.items)
	for _, p := range r.moved.Paths {
		addMoved(dirty, dirs, p)
	}
	for p := range r.lost {
		addMoved(dirty, dirs, p)
	}
	ls.remember(r)
	ls.pin(r)
	defer ls.releaseMem()
	began := time.Now()
	defer func() { ls.steadySpent += time.Since(began) }()
	deadline := began.Add(min(steadyTakeFor, steadySaveFor-ls.steadySpent))
	for try := 0; try < steadyTakes && time.Now().Before(deadline); try++ {
		if err := ctx.Err(); err != nil {
			return Result{}, false, err
		}
		g, err := ls.takeGroup(ctx, r.items, dirty)
		if err != nil {
			return Result{}, false, err
		}
		switch {
		case g.never:
			return Result{}, false, nil
		case !g.ok:
			for _, p := range g.more {
				addMoved(dirty, dirs, p)
			}
			time.Sleep(g.wait)
			continue
		}
		if err := ls.storeMem(g.items, g.members); err != nil {
			return Result{}, false, err
		}
		if res, ok, err := ls.commitGroup(ctx, g); err != nil || ok {
			return res, ok, err
		}
	}
	return Result{}, false, nil
}

// addMoved adds to set the folders a moved path p makes the group read:
// the one holding it and, a folder (dirs), itself (its names changed).
func addMoved(set map[string]struct{}, dirs map[string]bool, p string) {
	if parent, ok := pathParent(p); ok {
		set[parent] = struct{}{}
	}
	if dirs[p] || p == "." {
		set[p] = struct{}{}
	}
}

// foldersOf is the set of the folders of a scan.
func foldersOf(items []tree.Scanned) map[string]bool {
	out := map[string]bool{}
	for i := range items {
		if tree.KindOf(items[i].Id.Mode) == tree.KindDir {
			out[items[i].Rel] = true
		}
	}
	return out
}

// group is one try of a steady take.
type group struct {
	items   []tree.Scanned // the scan with the group's folders read again
	notKept []tree.NotKept
	firsts  map[int32]bool
	// ok: every path of the group was as copied at one moment, and the
	// rest as scanned. Else more are paths outside the group that moved,
	// wait how long to wait before the next try, and never that no try
	// can take this group.
	ok      bool
	never   bool
	members []int32   // the places in items of the group's paths
	at      time.Time // when the try began (Result.AsOf)
	more    []string
	wait    time.Duration
}

// takeGroup is one try of a steady take of the folders dirty of the disk
// scanned as items (steps 1 to 4 above).
func (ls *liveSave) takeGroup(ctx context.Context, items []tree.Scanned, dirty map[string]struct{}) (*group, error) {
	at, t0 := time.Now(), nextTick()
	var keepLF func() bool
	if ls.idx != nil {
		keepLF = ls.idx.Lists("lost+found")
	}
	rs, err := tree.Rescan(ls.root, items, ls.notKept, tree.Dirty{Folders: dirty}, tree.Opts{KeepLF: keepLF, Caches: ls.s.Caches, Feed: ls.feed})
	if err != nil {
		return &group{wait: time.Millisecond}, nil // a folder went as it was read: the next try reads its parent
	}
	g := &group{items: rs.Items, notKept: rs.NotKept, firsts: rs.Firsts, at: at}
	var members []int32
	var jobs, memJobs []copyJob
	var copying, inMemory int64
	for i := range rs.Items {
		it := &rs.Items[i]
		if !ls.inGroup(rs.Read, it.Rel) {
			continue
		}
		members = append(members, int32(i))
		if tree.KindOf(it.Id.Mode) == tree.KindDir && !rs.Read[it.Rel] {
			// Stat'ed in its folder's listing, its own names taken as they
			// were: as long as it is as it was, they are.
			if from := rs.From[i]; from < 0 || items[from].Id != it.Id {
				g.more = append(g.more, it.Rel)
			}
		}
		if tree.KindOf(it.Id.Mode) != tree.KindFile {
			continue
		}
		if it.HardLink != 0 || ls.mapped[it.Id.Ino] {
			g.never = true
			return g, nil
		}
		if c, ok := ls.cache[it.Rel]; ok && c.id == it.Id {
			continue
		}
		if copying += it.Id.Size; copying > steadyMax {
			g.never = true // too much to copy between two writes
			return g, nil
		}
		inMem := !it.Sparse() && inMemory+it.Id.Size <= steadyMemMax
		if inMem {
			inMemory += it.Id.Size
		}
		if m := ls.mem[it.Rel]; m != nil && m.id == it.Id {
			continue
		}
		j := copyJob{ref: int32(i), size: it.Id.Size, sparse: it.Sparse()}
		if inMem {
			memJobs = append(memJobs, j)
		} else {
			jobs = append(jobs, j)
		}
	}
	if len(g.more) > 0 {
		return g, nil
	}
	if ok, err := ls.memGroup(ctx, rs.Items, memJobs); err != nil || !ok {
		g.wait = time.Millisecond
		return g, err
	}
	if ok, err := ls.copyGroup(ctx, rs.Items, jobs); err != nil || !ok {
		g.wait = time.Millisecond
		return g, err
	}
	if ok, wait, err := ls.groupHeld(rs.Items, members, rs.NotKept, keepLF, t0, rs.Read["."]); err != nil || !ok {
		g.wait = max(wait, time.Millisecond)
		return g, err
	}
	g.more, g.ok, err = ls.restHeld(rs.Items, rs.Read)
	g.members = members
	return g, err
}

// restHeld tells whether the paths of items outside the group (read: its
// folders) are still as items has them (step 4): more are those that may
// have moved. By the feed, the folders it heard change since the save took
// its changes are those (all the others are as the save's scans found
// them). Else the disk is looked at, and a path whose ctime is not older
// than the save's start may have moved too, unseen: a change in the same
// tick of the change clock as its scan leaves its identity as it was.
func (ls *liveSave) restHeld(items []tree.Scanned, read map[string]bool) (more []string, ok bool, err error) {
	if ls.follow != nil {
		if ch := ls.follow.feed.Peek(); !ch.Lost && len(ch.Linked) == 0 {
			for f := range ch.Folders {
				if !read[f] {
					more = append(more, f)
				}
			}
			return more, len(more) == 0, nil
		}
	}
	var stop atomic.Bool
	diffs, _, err := ls.look(items, &stop)
	if err != nil {
		return nil, false, err
	}
	for _, p := range diffs.Paths {
		if !ls.inGroup(read, p) {
			more = append(more, p)
		}
	}
	for i := range items {
		if it := &items[i]; it.Id.CTime >= ls.clock && !ls.inGroup(read, it.Rel) {
			more = append(more, it.Rel)
		}
	}
	return more, len(more) == 0 && diffs.N == len(diffs.Paths), nil
}

// nextTick waits for the change clock's next tick and returns it: a try
// started then finds every change of the tick before settled, so only a
// change made during the try itself fails it.
func nextTick() int64 {
	c0 := tree.ChangeClock()
	for {
		if c := tree.ChangeClock(); c != c0 {
			return c
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// inGroup reports whether path rel is in a folder read again (the top
// itself is not: its times move for RAMBar's own files).
func (ls *liveSave) inGroup(read map[string]bool, rel string) bool {
	parent, ok := pathParent(rel)
	return ok && read[parent] || rel != "." && read[rel]
}

// groupHeld stats the group's members (places in items) again (step 3):
// ok when each is as items has it and changed before t0; else wait is how
// long until the change clock passes one that changed too lately. top:
// the top folder is in the group, so its names are compared too.
func (ls *liveSave) groupHeld(items []tree.Scanned, members []int32, notKept []tree.NotKept, keepLF func() bool, t0 int64, top bool) (ok bool, wait time.Duration, err error) {
	t, err := tree.OpenTree(ls.root)
	if err != nil {
		return false, 0, err
	}
	defer t.Close()
	for _, i := range members {
		it := &items[i]
		var st unix.Stat_t
		if err := t.Lstat(it.Rel, &st); err != nil || tree.IdentOf(&st) != it.Id {
			return false, 0, nil
		}
		if tree.KindOf(it.Id.Mode) == tree.KindFile {
			continue // settled before its copy (copier.held): any change since shows
		}
		if settled, w := settledBy(it.Id, t0, 0); !settled {
			return false, w, nil
		}
	}
	if top {
		return topHeld(t.Fd, items, notKept, keepLF), 0, nil
	}
	return true, 0, nil
}

// topHeld reports whether the disk's top folder (open as fd) holds just
// the names items and notKept give it, less what is never contents.
func topHeld(fd int, items []tree.Scanned, notKept []tree.NotKept, keepLF func() bool) bool {
	want := map[string]bool{}
	for i := range items {
		if p, ok := pathParent(items[i].Rel); ok && p == "." {
			want[items[i].Rel] = true
		}
	}
	for _, n := range notKept {
		if p, ok := pathParent(n.Path); ok && p == "." {
			want[n.Path] = true
		}
	}
	names, err := tree.DirNames(fd)
	if err != nil {
		return false
	}
	seen := 0
	for _, n := range names {
		var st unix.Stat_t
		if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return false
		}
		if tree.IsReserved(fd, n, &st, keepLF) {
			continue
		}
		if !want[n] {
			return false
		}
		seen++
	}
	return seen == len(want)
}

// commitGroup commits the disk as group g took it: a round of its scan
// that finds every file it needs copied (the group's copies, and the
// rounds' before) and looks no further (step 4 looked).
func (ls *liveSave) commitGroup(ctx context.Context, g *group) (Result, bool, error) {
	ls.match, ls.pre, ls.from, ls.kept = nil, nil, nil, nil
	ls.notKept, ls.firsts = g.notKept, g.firsts
	ls.looked = true
	defer func() { ls.looked = false }()
	r, err := ls.round(ctx, g.items, false)
	if err != nil {
		return Result{}, false, err
	}
	if r.moved.N > 0 || r.res.Snapshot != ls.id {
		return Result{}, false, nil
	}
	r.res.AsOf = g.at
	return r.res, true, nil
}
