package disks

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
)

// TestContinuousDiskIsSavedSecondsAfterEachChange: a disk made with
// --save-every auto is saved by the menu-bar app's autosave seconds after
// it changes (no interval, no tick), by its change feed after the first
// save, and the feed tells what is unsaved with no scan.
func TestContinuousDiskIsSavedSecondsAfterEachChange(t *testing.T) {
	s, _ := memService(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v := keptDisk(t, s, "Live", keeper.AutosaveAuto)
	k, _ := s.Keeper()
	if st, _ := k.State("Live"); !st.Continuous || st.SaveEvery != 0 {
		t.Fatalf("state %+v: not continuous", st)
	}
	saved := make(chan keeper.Result, 16)
	go s.Autosave(ctx, time.Hour, func(name string, r keeper.Result, err error) {
		if err != nil {
			t.Errorf("save %s: %v", name, err)
		}
		saved <- r
	})
	waitFollowed(t, s, v)
	select { // the first save walks the disk: the feed watches it from then on
	case <-saved:
	case <-time.After(20 * time.Second):
		t.Fatal("no first save")
	}
	m := NewMenu(s) // its "•" mark asks the feed each time: no answer of a walk kept for a while
	for i, body := range []string{"first", "second", "third"} {
		if m.Unsaved(v) {
			t.Errorf("before write %d the menu marks the disk unsaved", i)
		}
		at := time.Now()
		os.WriteFile(filepath.Join(v.MountPoint, "work"), []byte(body), 0o600)
		if u := s.Unsaved(v); !u.Known || u.Paths != 1 {
			t.Errorf("after write %d the feed tells %+v, want 1 unsaved path", i, u)
		}
		if !m.Unsaved(v) {
			t.Errorf("after write %d the menu does not mark the disk unsaved", i)
		}
		select {
		case r := <-saved:
			if r.Unchanged || !r.ByFeed {
				t.Fatalf("save %d: %+v, want a change saved by the feed", i, r.Result)
			}
			if d := time.Since(at); d < keeper.ContinuousQuiet/2 || d > keeper.ContinuousQuiet+5*time.Second {
				t.Errorf("saved %s after the write", d)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("write %d never saved", i)
		}
		if u := s.Unsaved(v); !u.Known || u.Paths != 0 {
			t.Errorf("after save %d the feed tells %+v", i, u)
		}
	}
	if dirty, err := k.Dirty(v); err != nil || dirty {
		t.Fatalf("a walk finds the disk unsaved: %v %v", dirty, err)
	}
}

// TestContinuousSavesUnderSteadyWriting: a file written every 100 ms is
// saved at least every ContinuousBusy, not only once the writing stops.
func TestContinuousSavesUnderSteadyWriting(t *testing.T) {
	s, _ := memService(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v := keptDisk(t, s, "Busy", keeper.AutosaveAuto)
	saves := make(chan time.Time, 64)
	go s.Autosave(ctx, time.Hour, func(string, keeper.Result, error) { saves <- time.Now() })
	waitFollowed(t, s, v)
	start := time.Now()
	stop := time.After(4*keeper.ContinuousBusy + time.Second)
	n := 0
	for writing := true; writing; {
		select {
		case <-stop:
			writing = false
		case <-saves:
			n++
		case <-time.After(100 * time.Millisecond):
			os.WriteFile(filepath.Join(v.MountPoint, "log"), []byte(time.Now().String()), 0o600)
		}
	}
	if n < 2 {
		t.Fatalf("%d saves in %s of steady writing", n, time.Since(start).Round(time.Second))
	}
}

// waitFollowed waits until Autosave follows disk v.
func waitFollowed(t *testing.T, s *Service, v ramdisk.Volume) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); s.following(v) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the disk is never followed")
		}
	}
}

// keptDisk makes disk name, kept and saved every every (0: no autosave).
func keptDisk(t *testing.T, s *Service, name string, every time.Duration) ramdisk.Volume {
	t.Helper()
	c, err := s.Create(context.Background(), CreateRequest{Input: ramdisk.Input{Name: name, Size: "16M"},
		Contents: keeper.Options{Mode: ramdisk.Keep, SaveEvery: every}})
	if err != nil {
		t.Fatal(err)
	}
	return c.Volume
}
