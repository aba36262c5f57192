//go:build linux

package keeper

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"rambar/tree"
)

// A mail client moving messages between Maildir's new/ and cur/ (renames,
// the flags in the name changing) while the disk is saved: a message moved
// while the save scans is in neither folder's listing, so the snapshot
// lacks it; the write-back must never delete it from the folder on that
// account. After every save each message is in the folder under some
// name, and once the mover stops a save makes the folder the disk's.
func TestMirrorMailMoverNeverLosesAMessage(t *testing.T) {
	const n = 300
	f := newMirrorFill(t, func(folder string) {
		for i := 0; i < n; i++ {
			write(t, folder, fmt.Sprintf("Maildir/new/%d.msg", i), fmt.Sprintf("message %d\n%s", i, strings.Repeat("x", 300)))
		}
		os.MkdirAll(filepath.Join(folder, "Maildir/cur"), 0o755)
	})
	var mu sync.Mutex
	where := map[int]string{}
	for i := 0; i < n; i++ {
		where[i] = fmt.Sprintf("new/%d.msg", i)
	}
	stop, done := make(chan struct{}), make(chan int)
	go func() {
		r, moves := rand.New(rand.NewSource(time.Now().UnixNano())), 0
		for {
			select {
			case <-stop:
				done <- moves
				return
			default:
			}
			i := r.Intn(n)
			mu.Lock()
			from := where[i]
			to := fmt.Sprintf("cur/%d.msg:2,%c", i, "SRF"[r.Intn(3)])
			if strings.HasPrefix(from, "cur/") {
				to = fmt.Sprintf("new/%d.msg", i)
			}
			if os.Rename(f.disk("Maildir/"+from), f.disk("Maildir/"+to)) == nil {
				where[i] = to
				moves++
			}
			mu.Unlock()
			time.Sleep(time.Duration(500+r.Intn(2500)) * time.Microsecond)
		}
	}()
	saved, refused, missed, postponed := 0, 0, 0, 0
	for tries := 0; saved < 24 && tries < 400; tries++ {
		r, err := f.k.Save(f.ctx, f.v, SaveOptions{})
		if err != nil {
			refused++ // the save itself gave up on a path that moved (the live-disk issue's part)
			continue
		}
		saved++
		if r.Folder != nil {
			postponed += r.Folder.Postponed
		}
		if m, err := f.k.store(mustState(t, f.k, "Site")).Manifest(r.Snapshot); err == nil && messages(m.Entries) < n {
			missed++
		}
		if lost := missing(t, f.inFolder("Maildir"), n); len(lost) > 0 {
			t.Fatalf("save %d: messages gone from the folder: %v", saved, lost)
		}
	}
	close(stop)
	moves := <-done
	t.Logf("%d moves; %d saves written back (%d snapshots lacked a message that was moving, %d deletions postponed), %d saves refused",
		moves, saved, missed, postponed, refused)
	if saved < 20 {
		t.Fatalf("only %d saves in %d tries", saved, saved+refused)
	}
	f.save()
	var want, got []string
	for _, d := range []string{f.v.MountPoint, f.folder} {
		names := []string{}
		for _, sub := range []string{"new", "cur"} {
			ents, _ := os.ReadDir(filepath.Join(d, "Maildir", sub))
			for _, e := range ents {
				names = append(names, sub+"/"+e.Name())
			}
		}
		sort.Strings(names)
		if d == f.folder {
			got = names
		} else {
			want = names
		}
	}
	if strings.Join(want, " ") != strings.Join(got, " ") {
		t.Errorf("once the disk is still, the folder holds %d names, the disk %d", len(got), len(want))
	}
	f.noLeftovers()
}

// missing lists the messages (0 to n-1) in neither new/ nor cur/ of maildir.
func missing(t *testing.T, maildir string, n int) []int {
	t.Helper()
	have := map[int]bool{}
	for _, sub := range []string{"new", "cur"} {
		ents, err := os.ReadDir(filepath.Join(maildir, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			var i int
			if _, err := fmt.Sscanf(e.Name(), "%d.msg", &i); err == nil {
				have[i] = true
			}
		}
	}
	var out []int
	for i := 0; i < n; i++ {
		if !have[i] {
			out = append(out, i)
		}
	}
	return out
}

// messages counts the distinct messages a tree holds.
func messages(entries []tree.Entry) int {
	have := map[int]bool{}
	for _, e := range entries {
		var i int
		if _, err := fmt.Sscanf(filepath.Base(e.Path), "%d.msg", &i); err == nil && e.Kind == tree.KindFile {
			have[i] = true
		}
	}
	return len(have)
}
