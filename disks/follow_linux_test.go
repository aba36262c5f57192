package disks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"
)

// TestFollowedDiskMadeAgainIsFollowedAgain: a kept disk saved continuously
// and followed by the menu-bar app (its Autosave, with a tick of an hour so
// only the quick look can see it) is ejected and made again from the CLI (a
// service of its own over the same data folder) on real tmpfs, at once or
// after the app has seen it go. Within seconds the app follows the new disk,
// not the old one's feed, and saves a change on it by its feed.
func TestFollowedDiskMadeAgainIsFollowedAgain(t *testing.T) {
	tests := []struct {
		name string
		// seenGone: the disk is made again only once the app stopped
		// following the ejected one.
		seenGone bool
	}{
		{name: "made again at once"},
		{name: "made again after the app saw it go", seenGone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := realRoot(t)
			eng := linux.New(run.System(), linux.WithMountRoot(root))
			paths := ramdiskPaths(t)
			app, cli := &Service{Engine: eng, Paths: paths}, &Service{Engine: eng, Paths: paths}
			ctx := context.Background()
			v := listed(t, cli, keptDisk(t, cli, "Live", keeper.AutosaveAuto))
			saved := autosaving(t, app)
			waitFollowed(t, app, v)
			waitSaved(t, saved, "the first save", func(keeper.Result) bool { return true })

			if _, err := cli.Eject(ctx, v, EjectOptions{}); err != nil {
				t.Fatal(err)
			}
			if tt.seenGone {
				for deadline := time.Now().Add(10 * time.Second); app.following(v) != nil; time.Sleep(20 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the app still follows the ejected disk 10 s after its eject")
					}
				}
			}
			again := listed(t, cli, keptDisk(t, cli, "Live", 0))
			if again.MountPoint != v.MountPoint || again.Identity == v.Identity {
				t.Fatalf("made again at %s (%s), was %s (%s): want the same place, another volume",
					again.MountPoint, again.Identity, v.MountPoint, v.Identity)
			}
			start := time.Now()
			waitFollowed(t, app, again)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("followed again %s after it was made again", d.Round(time.Millisecond))
			}
			if app.following(v) != nil {
				t.Error("the ejected disk is still taken for followed")
			}
			if _, err := app.Save(ctx, v, SaveOptions{}); !errors.Is(err, ramdisk.ErrNotFound) {
				t.Errorf("a save of the ejected disk, with the disk made again at its place: %v, want ErrNotFound", err)
			}
			drain(saved)
			if err := os.WriteFile(filepath.Join(again.MountPoint, "after"), []byte("made again"), 0o600); err != nil {
				t.Fatal(err)
			}
			waitSaved(t, saved, "the change on the disk made again", func(r keeper.Result) bool { return !r.Unchanged })
			k, _ := cli.Keeper()
			if dirty, err := k.Dirty(again); err != nil || dirty {
				t.Errorf("after the app's save a walk finds the disk made again unsaved: %v %v", dirty, err)
			}
			if u := app.Unsaved(again); !u.Known || u.Paths != 0 {
				t.Errorf("the app's feed of the disk made again tells %+v, want known and nothing unsaved", u)
			}
		})
	}
}

// listed is disk v as the engine lists it, with its identity.
func listed(t *testing.T, s *Service, v ramdisk.Volume) ramdisk.Volume {
	t.Helper()
	got, err := s.Find(context.Background(), v.Name)
	if err != nil {
		t.Fatal(err)
	}
	if got.Identity == "" {
		t.Fatalf("%s is listed with no identity", v.Name)
	}
	return got
}

// waitSaved waits up to 20 s for a save reported on saved that ok takes.
func waitSaved(t *testing.T, saved <-chan keeper.Result, what string, ok func(keeper.Result) bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case r := <-saved:
			if ok(r) {
				return
			}
		case <-deadline:
			t.Fatalf("%s: never saved", what)
		}
	}
}

// drain empties saved.
func drain(saved <-chan keeper.Result) {
	for {
		select {
		case <-saved:
		default:
			return
		}
	}
}

// autosaving runs s.Autosave (an hour's interval: the feed's saves only)
// until the test ends, failing the test on a save's error; the saves'
// results come on the channel returned (dropped when it is full). It
// returns once Autosave runs, as the agent's does before a request.
func autosaving(t *testing.T, s *Service) <-chan keeper.Result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	saved, done := make(chan keeper.Result, 64), make(chan struct{})
	go func() {
		defer close(done)
		s.Autosave(ctx, time.Hour, func(name string, r keeper.Result, err error) {
			if err != nil {
				t.Errorf("save %s: %v", name, err)
			}
			select {
			case saved <- r:
			default:
			}
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) { // as in the agent: running before a keep comes
		s.follow.mu.Lock()
		running := s.follow.start != nil
		s.follow.mu.Unlock()
		if running {
			return saved
		}
		if time.Now().After(deadline) {
			t.Fatal("Autosave did not start")
		}
	}
}
