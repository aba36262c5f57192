package disks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"rambar/changefeed"
	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"
)

// TestFirstSaveAfterALoadReadsTheFeed: a Mirror disk of 200 folders, one
// file changed after its load, saved by the process that runs Autosave
// (the agent). Made there, the load's own walk is its feed's first; made
// by another process (the CLI, which then hands the disk to the agent
// with a save: app's handToAgent), that save's walk is. Either way the
// save after it reads only what the feed names and lists a few folders,
// not the disk's 201. Before, the agent followed a disk only at its next
// look and its first save walked the whole disk again.
func TestFirstSaveAfterALoadReadsTheFeed(t *testing.T) {
	for _, m := range feedModes {
		for _, byCLI := range []bool{false, true} {
			name := m.name + ", made in the agent"
			if byCLI {
				name = m.name + ", made by the CLI and handed over"
			}
			t.Run(name, func(t *testing.T) { firstSaveAfterLoad(t, m.mode, byCLI) })
		}
	}
}

func firstSaveAfterLoad(t *testing.T, mode changefeed.Mode, byCLI bool) {
	const folders = 200
	folder := filepath.Join(t.TempDir(), "site")
	for i := range folders {
		d := filepath.Join(folder, fmt.Sprintf("d%03d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f"), []byte("ab"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, paths := realRoot(t), ramdiskPaths(t)
	service := func() *Service {
		return &Service{Engine: linux.New(run.System(), linux.WithMountRoot(root)), Paths: paths,
			NewKeeper: func(data string) *keeper.Keeper {
				k := keeper.NewKeeper(data)
				k.FeedMode = mode
				return k
			}}
	}
	agent, maker := service(), service()
	autosaving(t, agent)
	if !byCLI {
		maker = agent
	}
	ctx := context.Background()
	c, err := maker.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Site", Size: "16M"},
		Contents: keeper.Options{Mode: ramdisk.Mirror, MirrorPath: folder}})
	if err != nil {
		t.Fatal(err)
	}
	v := listed(t, agent, c.Volume)
	t.Cleanup(func() { agent.Eject(context.Background(), v, EjectOptions{Force: true, NoSave: true}) })
	if byCLI {
		r, err := agent.Save(ctx, v, SaveOptions{}) // handToAgent: the agent's walk, its feed's first
		if err != nil {
			t.Fatal(err)
		}
		if !r.Unchanged || r.ByFeed {
			t.Errorf("the hand-over's save: %+v, want a walk that finds nothing changed", r.Result)
		}
	}
	count := dirOpens(t, v.MountPoint)
	if err := os.WriteFile(filepath.Join(v.MountPoint, "d100", "f"), []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := agent.Save(ctx, v, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opens := count()
	t.Logf("folders of %d listed by the first save after the load: %d; %+v", folders+1, opens, r.Result)
	if r.Unchanged || !r.ByFeed || opens > folders/10 {
		t.Errorf("the first save after the load listed %d folders of %d, by the feed %v, unchanged %v; want the feed's few",
			opens, folders+1, r.ByFeed, r.Unchanged)
	}
	got, err := os.ReadFile(filepath.Join(folder, "d100", "f"))
	if err != nil || string(got) != "abc" {
		t.Errorf("the folder holds %q (%v) after the save, want the change written back", got, err)
	}
}
