//go:build linux

package snapshot

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"golang.org/x/sys/unix"

	"rambar/changefeed"
	"rambar/internal/testdigest"
	"rambar/internal/testtree"
	"rambar/snapstore"
	"rambar/tree"
)

// following opens a feed on root and a Follow by it.
func following(t *testing.T, root string) (*changefeed.Feed, *Follow) {
	t.Helper()
	feed, err := changefeed.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { feed.Close() })
	return feed, NewFollow(feed)
}

// TestSavesByTheFeedAreFullSaves: after each of hundreds of rounds of
// random changes, a save by the change feed (reading only the folders it
// names) makes exactly the snapshot a save that walks the whole disk
// makes, and restores to the disk as it is.
func TestSavesByTheFeedAreFullSaves(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	c := testtree.NewChanger(root, testtree.Seed())
	for range 150 {
		c.Change()
	}
	fed := &Store{Store: &snapstore.Store{Dir: t.TempDir()}}
	walked := &Store{Store: &snapstore.Store{Dir: t.TempDir()}}
	_, f := following(t, root)
	byFeed, changes := 0, 0
	for round := range 120 {
		var did []string
		for range c.Intn(10) {
			did = append(did, c.Change())
			changes++
		}
		r1, err := fed.SaveLocked(ctx, root, "disk", 3, nil, f)
		if err != nil {
			t.Fatal(err)
		}
		if r1.ByFeed {
			byFeed++
		}
		r2, err := walked.SaveLocked(ctx, root, "disk", 3, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r1.Unchanged != r2.Unchanged || r1.Files != r2.Files || r1.Bytes != r2.Bytes {
			t.Fatalf("round %d after %q: by the feed %+v, by a walk %+v", round, did, r1, r2)
		}
		a, b := treeOf(t, fed, r1.Snapshot), treeOf(t, walked, r2.Snapshot)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("round %d after %q: the snapshots differ: %s", round, did, firstEntryDiff(a, b))
		}
		if round%20 == 19 {
			out := t.TempDir()
			if _, err := fed.Restore(ctx, "", out, "", nil); err != nil {
				t.Fatal(err)
			}
			testdigest.Same(t, testdigest.Of(t, root), testdigest.Of(t, out))
		}
	}
	if byFeed < 100 {
		t.Fatalf("only %d of 120 saves went by the feed", byFeed)
	}
	t.Logf("%d changes, %d saves by the feed", changes, byFeed)
}

// treeOf is snapshot id's entries as a comparison of two stores sees them:
// without their objects' names and access times (a save reads a changed
// path's metadata when it saves it, and the two saves are moments apart).
func treeOf(t *testing.T, s *Store, id string) []tree.Entry {
	t.Helper()
	m, err := s.Tree(id, true)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]tree.Entry(nil), m.Entries...)
	for i := range out {
		out[i].Obj, out[i].ATime = tree.ObjName{}, unix.Timespec{}
	}
	return out
}

func firstEntryDiff(a, b []tree.Entry) string {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return fmt.Sprintf("%+v\n  by a walk %+v", a[i], b[i])
		}
	}
	return fmt.Sprintf("%d entries, by a walk %d", len(a), len(b))
}
