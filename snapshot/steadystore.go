package snapshot

// The copies a steady take (steady.go) makes in the store: files past what
// it holds in memory (steadymem.go), and the objects it must not remove.

import (
	"context"
	"os"
	"strconv"

	"rambar/tree"
)

// copyGroup copies the jobs (files of items, step 2), keeping each copy
// for the tries and rounds after (ls.cache); ok reports that each held
// still as items found it.
func (ls *liveSave) copyGroup(ctx context.Context, items []tree.Scanned, jobs []copyJob) (bool, error) {
	if len(jobs) == 0 {
		return true, nil
	}
	path := func(ref int32) string { return items[ref].Rel }
	chk := &copyCheck{scanned: func(k int) *tree.Scanned { return &items[jobs[k].ref] }, w: newWatch(nil, nil)}
	ext := &extentsOf{}
	var err error
	if ls.next, err = ls.s.copyObjects(ctx, ls.root, ls.id, jobs, ls.next, path, chk, ext, nil); err != nil {
		return false, err
	}
	ok := true
	for k := range jobs {
		j, it := &jobs[k], &items[jobs[k].ref]
		switch j.state {
		case jobCopied:
		case jobMoved: // a later version held still: the group takes it
			it.Became(chk.moved[k])
		case jobUnstable:
			ls.drop(j.obj(ls.id)) // a copy was written
			fallthrough
		default:
			ok = false
			continue
		}
		if old, had := ls.cache[it.Rel]; had {
			ls.drop(old.obj)
		}
		ls.cache[it.Rel] = cachedCopy{id: it.Id, obj: j.obj(ls.id), size: j.size, ext: ext.m[k]}
	}
	return ok, nil
}

// pin records the objects round r's jobs hold: a snapshot taken while in
// use may still be made of them, so a steady take never removes them.
func (ls *liveSave) pin(r *round) {
	if ls.pinned == nil {
		ls.pinned = map[uint32]bool{}
	}
	for k := range r.p.jobs {
		if j := &r.p.jobs[k]; j.state == jobCopied || j.state == jobCached || j.state == jobMoved {
			ls.pinned[j.num] = true
		}
	}
}

// drop removes object o, a steady take's copy no try uses any more (one
// that did not hold still, or that a later copy of its file replaced):
// under steady writing the tries of one save would otherwise fill the
// store. Packs (other files' copies too) and the rounds' objects stay;
// the commit removes what is left unused.
func (ls *liveSave) drop(o tree.ObjName) {
	if o.Save != ls.id || o.Packed || ls.pinned[o.Num] {
		return
	}
	os.Remove(ls.s.Path("objects", ls.id, strconv.FormatUint(uint64(o.Num), 10)))
}
