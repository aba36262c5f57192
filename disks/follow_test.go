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
// --save-every auto, or any kept disk once Settings ▸ Save Kept Disks
// Continuously is on, is saved by the menu-bar app's autosave seconds
// after it changes (no interval, no tick), by its change feed after the
// first save; the feed tells what is unsaved with no scan, to the menu
// ("Saved 3 s ago, 1 path changed since") and, through the status the app
// publishes, to `rambar info` in another process.
func TestContinuousDiskIsSavedSecondsAfterEachChange(t *testing.T) {
	for _, way := range []string{"disk", "settings"} {
		t.Run(way, func(t *testing.T) { continuousDisk(t, way == "settings") })
	}
}

func continuousDisk(t *testing.T, bySettings bool) {
	s, _ := memService(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	every := keeper.AutosaveAuto
	if bySettings {
		every = 0
		st, _ := s.Store()
		if err := st.Save(ramdisk.Settings{Version: ramdisk.SettingsVersion, EjectOnQuit: ramdisk.QuitAsk, SaveContinuously: true}); err != nil {
			t.Fatal(err)
		}
	}
	v := keptDisk(t, s, "Live", every)
	k, _ := s.Keeper()
	if st, _ := k.State("Live"); st.Continuous == bySettings || st.SaveEvery != 0 {
		t.Fatalf("state %+v: continuous %v, want %v", st, st.Continuous, !bySettings)
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
		if at, n := m.SaveStatus(v); n != 1 || at.IsZero() {
			t.Errorf("after write %d the menu's status is saved %v, %d changed; want 1", i, at, n)
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
		if at, n := m.SaveStatus(v); n != 0 || time.Since(at) > 10*time.Second {
			t.Errorf("after save %d the menu's status is saved %v, %d changed", i, at, n)
		}
		if fs, ok := k.FeedStatus("Live"); !ok || fs.PID != os.Getpid() || !fs.Unsaved.Known || fs.Unsaved.Paths != 0 {
			t.Errorf("after save %d the published status is %+v, %v", i, fs, ok)
		}
	}
	if dirty, err := k.Dirty(v); err != nil || dirty {
		t.Fatalf("a walk finds the disk unsaved: %v %v", dirty, err)
	}
	// Unpublished once the app stops following it: no one vouches for it.
	cancel()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, ok := k.FeedStatus("Live"); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the status is still published after autosave stopped")
		}
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
