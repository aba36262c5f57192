//go:build linux

package tree

import (
	"fmt"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"rambar/changefeed"
)

// changer makes random changes to a tree: what users' programs do to a
// disk between two saves.
type changer struct {
	t    *testing.T
	root string
	r    *rand.Rand
	n    int
}

// pick is an existing path of the tree of the kind wanted ("dir", "file"
// or "" for any), or "" when there is none; "." may be a folder.
func (c *changer) pick(kind string) string {
	var all []string
	filepath.WalkDir(c.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(c.root, p)
		switch {
		case kind == "dir" && d.IsDir(), kind == "file" && d.Type().IsRegular(), kind == "" && rel != ".":
			all = append(all, rel)
		}
		return nil
	})
	if len(all) == 0 {
		return ""
	}
	return all[c.r.Intn(len(all))]
}

// fresh is a new name in a random folder.
func (c *changer) fresh() string {
	c.n++
	return filepath.Join(c.pick("dir"), fmt.Sprintf("%c%d", "aB._z-"[c.r.Intn(6)], c.n))
}

// change makes one random change, returning what it did.
func (c *changer) change() string {
	abs := func(rel string) string { return filepath.Join(c.root, rel) }
	switch op := c.r.Intn(16); op {
	case 0, 1, 14, 15:
		p := c.fresh()
		os.WriteFile(abs(p), []byte(strings.Repeat("x", c.r.Intn(3000))), 0o644)
		return "create " + p
	case 2:
		if p := c.pick("file"); p != "" {
			os.WriteFile(abs(p), []byte(strings.Repeat("y", c.r.Intn(5000))), 0o644)
			return "rewrite " + p
		}
	case 3:
		if p := c.pick("file"); p != "" {
			os.Truncate(abs(p), int64(c.r.Intn(100)))
			return "truncate " + p
		}
	case 4:
		p := c.fresh()
		os.Mkdir(abs(p), 0o755)
		return "mkdir " + p
	case 5:
		if p, q := c.pick(""), c.fresh(); p != "" && !strings.HasPrefix(q, p+"/") {
			os.Rename(abs(p), abs(q))
			return "rename " + p + " " + q
		}
	case 6:
		if p := c.pick("dir"); p != "." && c.r.Intn(10) == 0 {
			os.RemoveAll(abs(p))
			return "rm -rf " + p
		}
	case 7:
		if p := c.pick("file"); p != "" {
			q := c.fresh()
			os.Link(abs(p), abs(q))
			return "link " + p + " " + q
		}
	case 8:
		if p := c.pick("file"); p != "" {
			os.Chmod(abs(p), os.FileMode(0o600|c.r.Intn(0o100)))
			return "chmod " + p
		}
	case 9:
		if p := c.pick(""); p != "" {
			unix.Lsetxattr(abs(p), "user.k", []byte(fmt.Sprint(c.r.Int())), 0)
			return "xattr " + p
		}
	case 10:
		if p := c.pick("file"); p != "" {
			os.Remove(abs(p))
			return "rm " + p
		}
	case 11:
		p := c.fresh()
		os.Symlink("../t"+fmt.Sprint(c.n), abs(p))
		return "symlink " + p
	case 12:
		p := c.fresh()
		if c.r.Intn(2) == 0 {
			unix.Mkfifo(abs(p), 0o644)
			return "fifo " + p
		}
		if l, err := net.Listen("unix", abs(p)); err == nil {
			l.(*net.UnixListener).SetUnlinkOnClose(false)
			l.Close()
		}
		return "socket " + p
	case 13:
		// A folder moved out of the disk and back in, changed meanwhile.
		if p := c.pick("dir"); p != "." {
			out := c.root + ".out"
			if os.Rename(abs(p), out) == nil {
				os.WriteFile(filepath.Join(out, fmt.Sprint("away", c.n)), nil, 0o644)
				os.Rename(out, abs(p))
			}
			return "out and back " + p
		}
	}
	return "nothing"
}

// TestRescanIsAFullScan is the property a save by the feed rests on:
// after any changes, a rescan of the folders the change feed names, the
// rest taken from the scan before, gives exactly what a full scan gives,
// and says rightly which paths are the same and which are gone.
func TestRescanIsAFullScan(t *testing.T) {
	root := t.TempDir()
	c := &changer{t: t, root: root, r: rand.New(rand.NewSource(seed()))}
	for range 200 {
		c.change()
	}
	f, err := changefeed.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Take()
	prev, prevNot, err := ScanWith(root, 0, nil, Opts{Feed: f})
	if err != nil {
		t.Fatal(err)
	}
	changes, ctimes := 0, 0
	for round := range 400 {
		var did []string
		for range 1 + c.r.Intn(12) {
			did = append(did, c.change())
			changes++
		}
		ch := f.Take()
		if ch.Lost {
			t.Fatalf("round %d: the feed lost changes: %s", round, ch.Why)
		}
		r, err := Rescan(root, prev, prevNot, Dirty{Folders: ch.Folders, Linked: ch.Linked}, Opts{Feed: f})
		if err != nil {
			t.Fatal(err)
		}
		want, wantNot, err := ScanWith(root, 0, nil, Opts{})
		if err != nil {
			t.Fatal(err)
		}
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
		same := ok && sameIdentity(it.Rel, it.Id, prev[j].Id) && HardLinkOf(r.Items, i) == HardLinkOf(prev, j)
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

// seed is the random changes' seed: $RAMBAR_SEED, or a fixed one.
func seed() int64 {
	if n, err := strconv.ParseInt(os.Getenv("RAMBAR_SEED"), 10, 64); err == nil {
		return n
	}
	return 26
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
