package snapshot

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// TestSameBytesRememberedForLaterRounds: within one save (one memo), a
// file whose bytes were compared is not read again by a later round while
// its identity is the one compared; a file written since (same bytes,
// mtime put back: only its ctime tells) is read again.
func TestSameBytesRememberedForLaterRounds(t *testing.T) {
	root := sameTmpfs(t)
	s := &Store{Store: &snapstore.Store{Dir: t.TempDir()}}
	p := newPnpmLike(t, root)
	if _, err := s.SaveLocked(t.Context(), root, "disk", 5, nil, nil); err != nil {
		t.Fatal(err)
	}
	p.unlink(t)
	p.link(t)
	settle()
	var mu sync.Mutex
	var read []string
	sameRead = func(rel string) { mu.Lock(); read = append(read, rel); mu.Unlock() }
	t.Cleanup(func() { sameRead = nil })
	idx := s.LoadIndex()
	memo := sameMemo{}
	round := func() map[int32]*tree.Entry {
		t.Helper()
		read = nil
		items, err := tree.Scan(root)
		if err != nil {
			t.Fatal(err)
		}
		d, ok := snapstore.DiffIndex(idx, items, nil)
		if !ok {
			t.Fatal("the index does not diff")
		}
		same, _ := s.sameBytes(root, idx, items, &d, nil, memo, nil)
		return same
	}
	if same := round(); len(same) != len(p.store) || len(read) != len(p.store) {
		t.Fatalf("first round: %d of %d files taken, %d read", len(same), len(p.store), len(read))
	}
	if same := round(); len(same) != len(p.store) || len(read) != 0 {
		t.Fatalf("second round: %d of %d files taken, %d read again: %v", len(same), len(p.store), len(read), read)
	}
	target := p.links[p.store[2]][0]
	path := filepath.Join(root, target)
	var st unix.Stat_t
	b, err := os.ReadFile(path)
	if err == nil {
		err = unix.Stat(path, &st)
	}
	if err == nil {
		err = os.WriteFile(path, b, 0)
	}
	if err != nil {
		t.Fatal(err)
	}
	putTimes(t, path, time.Unix(st.Mtim.Unix()))
	settle()
	if same := round(); len(same) != len(p.store) || len(read) != 1 || read[0] != target {
		t.Fatalf("after a write of the same bytes: %d of %d files taken, read %v (want only %s)", len(same), len(p.store), read, target)
	}
}
