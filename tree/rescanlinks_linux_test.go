//go:build linux

package tree

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"rambar/internal/testtree"
)

// TestRescanKeepsHardLinkGroupsThatDidNotChange: on a tree whose files
// mostly have several names (a package store and its node_modules),
// rescans in a chain, each given the one before's Firsts, after changes
// that touch no file of several names (files written in place, added
// and removed before and after the store, so that every place moves) and
// now and then ones that do (a name linked or unlinked, a linked file
// written), give what a full scan gives: the same hard-link targets, the
// same Firsts, Same as a comparison by path says, and Kept only for
// paths as they were, hard-link target included.
func TestRescanKeepsHardLinkGroupsThatDidNotChange(t *testing.T) {
	root := t.TempDir()
	for i := range 30 {
		testtree.Write(t, root, fmt.Sprintf("store/%02d/f%d", i%5, i), fmt.Sprint("contents ", i))
	}
	for i := range 90 {
		d := filepath.Join(root, "node_modules", fmt.Sprintf("p%d", i%9))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(root, fmt.Sprintf("store/%02d/f%d", i%30%5, i%30)), filepath.Join(d, fmt.Sprintf("n%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		testtree.Write(t, root, fmt.Sprintf("a/s%d", i), "own")
		testtree.Write(t, root, fmt.Sprintf("z/s%d", i), "own")
	}
	f, prev, prevNot := followedScan(t, root)
	var firsts map[int32]bool
	rnd := rand.New(rand.NewSource(testtree.Seed()))
	for round := range 120 {
		did := linkRound(t, rnd, root, round)
		r, want, _ := rescanTaken(t, fmt.Sprintf("round %d", round), f, root, prev, prevNot, Opts{Feed: f, Firsts: firsts})
		if got, _ := ctimeOnly(r.Items, want); !reflect.DeepEqual(noAtimes(got), noAtimes(want)) {
			t.Fatalf("round %d after %s: the rescan differs from a full scan: %s", round, did, diffScans(got, want))
		}
		if w := firstsOf(want); !reflect.DeepEqual(r.Firsts, w) && (len(r.Firsts) > 0 || len(w) > 0) {
			t.Fatalf("round %d after %s: firsts %v, want %v", round, did, r.Firsts, w)
		}
		for i, kept := range r.Kept {
			if k := r.From[i]; kept && (k < 0 || r.Items[i].Rel != prev[k].Rel || r.Items[i].Id != prev[k].Id ||
				HardLinkOf(r.Items, i) != HardLinkOf(prev, int(k))) {
				t.Fatalf("round %d after %s: %s kept, but not as it was", round, did, r.Items[i].Rel)
			}
		}
		checkSame(t, round, did, prev, r)
		prev, prevNot, firsts = r.Items, r.NotKept, r.Firsts
	}
}

// linkRound makes round's changes under root and says what they were:
// most rounds files of one name only, every fifth a file of several.
func linkRound(t *testing.T, rnd *rand.Rand, root string, round int) []string {
	t.Helper()
	var did []string
	own := []string{"a", "z", "node_modules/p3"}
	for range 1 + rnd.Intn(3) {
		p := fmt.Sprintf("%s/s%d", own[rnd.Intn(len(own))], rnd.Intn(30))
		switch _, err := os.Lstat(filepath.Join(root, p)); {
		case err == nil && rnd.Intn(2) == 0:
			if err := os.Remove(filepath.Join(root, p)); err != nil {
				t.Fatal(err)
			}
			did = append(did, "removed "+p)
		default:
			testtree.Write(t, root, p, fmt.Sprint("round ", round))
			did = append(did, "wrote "+p)
		}
	}
	if round%5 == 4 {
		n := filepath.Join(root, "node_modules", fmt.Sprintf("p%d", rnd.Intn(9)), fmt.Sprintf("x%d", round))
		switch rnd.Intn(3) {
		case 0:
			if err := os.Link(filepath.Join(root, fmt.Sprintf("store/00/f%d", rnd.Intn(6)*5)), n); err == nil {
				did = append(did, "linked "+n)
			}
		case 1:
			p := filepath.Join(root, "node_modules", fmt.Sprintf("p%d", rnd.Intn(9)), fmt.Sprintf("n%d", rnd.Intn(90)))
			if os.Remove(p) == nil {
				did = append(did, "unlinked "+p)
			}
		default:
			p := fmt.Sprintf("store/00/f%d", rnd.Intn(6)*5)
			testtree.Write(t, root, p, fmt.Sprint("linked, round ", round))
			did = append(did, "wrote "+p)
		}
	}
	return did
}
