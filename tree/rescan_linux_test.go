//go:build linux

package tree

import (
	"fmt"
	"reflect"
	"testing"

	"rambar/internal/testtree"
)

// TestRescanIsAFullScan is the property a save by the feed rests on:
// after any changes, a rescan of the folders the change feed names, the
// rest taken from the scan before, gives exactly what a full scan gives,
// and says rightly which paths are the same and which are gone.
func TestRescanIsAFullScan(t *testing.T) {
	root := t.TempDir()
	c := testtree.NewChanger(root, testtree.Seed())
	for range 200 {
		c.Change()
	}
	f, prev, prevNot := followedScan(t, root)
	changes, ctimes := 0, 0
	for round := range 400 {
		var did []string
		for range 1 + c.Intn(12) {
			did = append(did, c.Change())
			changes++
		}
		r, want, wantNot := rescanTaken(t, fmt.Sprintf("round %d", round), f, root, prev, prevNot, Opts{Feed: f})
		got, n := ctimeOnly(r.Items, want)
		ctimes += n
		if !reflect.DeepEqual(noAtimes(got), noAtimes(want)) {
			t.Fatalf("round %d after %q: the rescan differs from a full scan: %s", round, did, diffScans(got, want))
		}
		if !reflect.DeepEqual(r.NotKept, wantNot) && (len(r.NotKept) > 0 || len(wantNot) > 0) {
			t.Fatalf("round %d after %q: skipped %v, a full scan %v", round, did, r.NotKept, wantNot)
		}
		checkSame(t, round, did, prev, r)
		prev, prevNot = r.Items, r.NotKept
	}
	t.Logf("%d changes, %d paths, %d folders watched; %d ctimes moved with no event", changes, len(prev), f.Watched(), ctimes)
}

// checkSame holds r's Same and Gone to a comparison by path with prev.
func checkSame(t *testing.T, round int, did []string, prev []Scanned, r *Rescanned) {
	t.Helper()
	old := map[string]int{}
	for i := range prev {
		old[prev[i].Rel] = i
	}
	now := map[string]bool{}
	for i := range r.Items {
		it := &r.Items[i]
		now[it.Rel] = true
		j, ok := old[it.Rel]
		same := ok && SameIdent(it.Rel, it.Id, prev[j].Id) && HardLinkOf(r.Items, i) == HardLinkOf(prev, j)
		if same != r.Same[i] {
			t.Fatalf("round %d after %q: %s same %v, want %v", round, did, it.Rel, r.Same[i], same)
		}
	}
	var gone []string
	for i := range prev {
		if !now[prev[i].Rel] {
			gone = append(gone, prev[i].Rel)
		}
	}
	got := append([]string(nil), r.Gone...)
	if len(got) != len(gone) {
		t.Fatalf("round %d after %q: gone %v, want %v", round, did, got, gone)
	}
}

// noAtimes is items without their access times. Reading a file or
// listing a folder moves its access time with no event (inotify's
// IN_ACCESS is not a change), so a rescan keeps the one of the scan
// before; a full scan's save does too, as the access time is no part of a
// path's identity (an unchanged path's entry is the snapshot's before).
func noAtimes(items []Scanned) []Scanned {
	out := append([]Scanned(nil), items...)
	for i := range out {
		out[i].atimeSec, out[i].atimeNsec = 0, 0
	}
	return out
}

// ctimeOnly is got with want's change times where they differ in that
// alone, and how many do. A hard link made to a
// file and removed again between two saves moves the file's change time
// and nothing else, and tells only the inode (inotify's IN_ATTRIB of a
// link count goes to watches of the file itself, not of its folder); the
// feed looks at every name made as it comes (Changes.Linked), but one
// removed before it looked is not known, and a rescan keeps the change
// time of the scan before. Nothing is lost by it:
// a snapshot holds no change time (the contents, mode, owner and other
// times are the same), and the hourly full scan takes the new one.
func ctimeOnly(got, want []Scanned) ([]Scanned, int) {
	n := 0
	if len(got) != len(want) {
		return got, 0
	}
	got = append([]Scanned(nil), got...)
	for i := range got {
		g := got[i]
		g.Id.CTime = want[i].Id.CTime
		if g != got[i] && reflect.DeepEqual(noAtimes([]Scanned{g}), noAtimes(want[i:i+1])) {
			got[i].Id.CTime = want[i].Id.CTime
			n++
		}
	}
	return got, n
}

func diffScans(a, b []Scanned) string {
	a, b = noAtimes(a), noAtimes(b)
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return fmt.Sprintf("at %d: %+v, want %+v", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("%d paths, want %d", len(a), len(b))
}
