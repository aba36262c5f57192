package keeper

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFileKeptOpenIsSavedByTheMacFeed: on a disk followed by a feed with
// the Mac's semantics (FSEvents hears a write only at close), a program
// writes a log through a descriptor it keeps open and never closes. Each
// save by the feed still holds the new bytes (the feed looks at the files
// open for writing), and the log woke the feed with no other change.
func TestFileKeptOpenIsSavedByTheMacFeed(t *testing.T) {
	ctx := context.Background()
	k, v := liveDisk(t, "Open", "32m", 10)
	sv := saverOf(t, k, v, "feed-mac")
	log := filepath.Join(v.MountPoint, "logs/app.log")
	write(t, v.MountPoint, "logs/app.log", "line 0\n")
	write(t, v.MountPoint, "other/o.txt", "o")
	if _, err := sv.save(ctx); err != nil { // a walk: the feed just started
		t.Fatal(err)
	}
	w, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	saved := func(want string) {
		t.Helper()
		root := mountTmpfs(t, "32m")
		if _, err := k.store(mustState(t, k, "Open")).Restore(ctx, "", root, "", nil); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(root, "logs/app.log")); err != nil || string(b) != want {
			t.Fatalf("the snapshot's log holds %q, want %q (%v)", b, want, err)
		}
	}
	want := "line 0\n"
	for i := 1; i <= 3; i++ {
		line := "line " + string(rune('0'+i)) + "\n"
		drainWake(sv)
		if _, err := w.WriteString(line); err != nil {
			t.Fatal(err)
		}
		want += line
		select {
		case <-sv.o.Follow.Wake():
		case <-time.After(10 * time.Second):
			t.Fatalf("write %d through the open descriptor did not wake the feed", i)
		}
		// A second at rest, so the save takes the file as it is (a file
		// written within the last second and open for writing may be
		// left for the next save: the save's rule, not the feed's).
		time.Sleep(1100 * time.Millisecond)
		res, err := sv.save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !res.ByFeed || res.Unchanged || res.CopiedFiles < 1 {
			t.Fatalf("save %d: by the feed %v, unchanged %v, %d files copied; want the log copied by the feed", i, res.ByFeed, res.Unchanged, res.CopiedFiles)
		}
		saved(want)
	}
	t.Logf("3 writes through a descriptor kept open, each saved by the feed (%d saves by it)", sv.fed)
}

// drainWake empties the wake-up of the feed s follows its disk by.
func drainWake(s *liveSaver) {
	select {
	case <-s.o.Follow.Wake():
	default:
	}
}
