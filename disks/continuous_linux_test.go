package disks

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rambar/changefeed"
	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"
)

// TestDiskSetToSaveContinuouslyIsSavedAsItChanges: a kept disk saved by
// its interval and followed by the app (its Autosave, with a tick of an
// hour) is set to save continuously: by `rambar keep NAME --save-every
// auto` served by the app itself (the agent), by the same run in another
// process (--direct), or by Settings ▸ Save Kept Disks Continuously. Its
// feed is inotify, as a normal user's is on Linux (the FSEvents test mode
// here, as root; root's fanotify mark hears every folder from the start):
// such a feed hears only the folders a save through it walked, and the
// app had made none. The first change after is saved within seconds, as
// the later ones are; a walk then finds nothing unsaved. Before, no save
// came at all until some other save walked the disk.
func TestDiskSetToSaveContinuouslyIsSavedAsItChanges(t *testing.T) {
	tests := []struct {
		name string
		// set sets the disk (made by cli, followed by app) to save
		// continuously.
		set func(t *testing.T, app, cli *Service)
	}{
		{"keep --save-every auto, served by the app", func(t *testing.T, app, _ *Service) { setAuto(t, app) }},
		{"keep --save-every auto, in another process", func(t *testing.T, _, cli *Service) { setAuto(t, cli) }},
		{"Save Kept Disks Continuously", func(t *testing.T, _, cli *Service) {
			st, _ := cli.Store()
			if err := st.Save(ramdisk.Settings{Version: ramdisk.SettingsVersion, EjectOnQuit: ramdisk.QuitAsk, SaveContinuously: true}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng, paths := linux.New(run.System(), linux.WithMountRoot(realRoot(t))), ramdiskPaths(t)
			inotify := func(data string) *keeper.Keeper {
				k := keeper.NewKeeper(data)
				k.FeedMode = changefeed.ModeFSEvents
				return k
			}
			app, cli := &Service{Engine: eng, Paths: paths, NewKeeper: inotify}, &Service{Engine: eng, Paths: paths}
			v := listed(t, cli, keptDisk(t, cli, "Live", 10*time.Minute))
			if err := os.MkdirAll(filepath.Join(v.MountPoint, "src", "pkg"), 0o700); err != nil {
				t.Fatal(err)
			}
			saved := autosaving(t, app)
			waitFollowed(t, app, v)
			if fs := app.following(v).Feed(); fs.Kind != changefeed.KindInotify {
				t.Fatalf("followed by %s, want inotify", fs.Kind)
			}

			tt.set(t, app, cli)
			k, _ := cli.Keeper()
			for i, name := range []string{"first", "second"} {
				at := time.Now()
				if err := os.WriteFile(filepath.Join(v.MountPoint, "src", "pkg", name), []byte(name), 0o600); err != nil {
					t.Fatal(err)
				}
				waitSaved(t, saved, "the "+name+" change", func(keeper.Result) bool {
					dirty, err := k.Dirty(v)
					return err == nil && !dirty
				})
				// FollowCheck: another process's setting is looked at that often.
				if d := time.Since(at); d > keeper.ContinuousBusy+FollowCheck+2*time.Second {
					t.Errorf("change %d saved %s after it was made", i, d.Round(time.Millisecond))
				}
			}
		})
	}
}

// setAuto sets disk Live to save continuously through s, as `rambar keep
// Live --save-every auto` does.
func setAuto(t *testing.T, s *Service) {
	t.Helper()
	adj, err := s.Adjust(context.Background(), "Live", keeper.Options{Mode: ramdisk.Keep, SaveEvery: keeper.AutosaveAuto})
	if err != nil {
		t.Fatal(err)
	}
	if !adj.After.Continuous {
		t.Fatalf("adjusted to %+v, want continuous", adj.After)
	}
}
