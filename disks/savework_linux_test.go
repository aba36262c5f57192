package disks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"rambar/changefeed"
	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"

	"golang.org/x/sys/unix"
)

// TestEjectSavesWithOneWalk: the app (its Autosave) follows a kept disk
// of folders on real tmpfs; one 2-byte change is saved by `save`, another
// by the save before an eject, both in the app's process (the agent's, as
// the CLI asks it). The work is counted as the folders of the disk opened
// (listed) while each runs: the save reads what the feed names; the
// eject's save, the last before the memory goes, walks the disk whole
// (what no feed heard is saved too), once. Before, an eject walked the
// disk twice (the check for changes, then a save made to walk). A disk
// not followed (the CLI with no agent) is walked once too.
func TestEjectSavesWithOneWalk(t *testing.T) {
	for _, m := range feedModes {
		t.Run(m.name, func(t *testing.T) { ejectWork(t, m.mode, true) })
	}
	t.Run("not followed (the CLI, no agent)", func(t *testing.T) { ejectWork(t, changefeed.ModeNative, false) })
}

// feedModes are the change feeds the save tests run through: this
// kernel's, and the Mac's semantics (writes heard at close, coalesced).
var feedModes = []struct {
	name string
	mode changefeed.Mode
}{
	{"fanotify (root)", changefeed.ModeNative},
	{"inotify, the Mac's semantics (the FSEvents test mode)", changefeed.ModeFSEvents},
}

func ejectWork(t *testing.T, mode changefeed.Mode, followed bool) {
	const folders = 200
	eng, paths := linux.New(run.System(), linux.WithMountRoot(realRoot(t))), ramdiskPaths(t)
	app := &Service{Engine: eng, Paths: paths, NewKeeper: func(data string) *keeper.Keeper {
		k := keeper.NewKeeper(data)
		k.FeedMode = mode
		return k
	}}
	v := listed(t, app, keptDisk(t, app, "Work", 0))
	for i := range folders {
		d := filepath.Join(v.MountPoint, fmt.Sprintf("d%03d", i))
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f"), []byte("ab"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	if followed {
		go func() { defer close(done); app.Autosave(ctx, time.Hour, nil) }()
		waitFollowed(t, app, v)
	} else {
		close(done)
	}
	defer func() { cancel(); <-done }()
	if _, err := app.Save(ctx, v, SaveOptions{}); err != nil { // the feed's first save walks the disk
		t.Fatal(err)
	}
	change := func(body string) {
		if err := os.WriteFile(filepath.Join(v.MountPoint, "d100", "f"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	change("cd")
	count := dirOpens(t, v.MountPoint)
	r, err := app.Save(ctx, v, SaveOptions{})
	saveOpens := count()
	if err != nil || r.ByFeed != followed || r.CopiedFiles != 1 {
		t.Fatalf("save: %+v, %v; want one file copied, by the feed: %v", r.Result, err, followed)
	}

	change("ef")
	count = dirOpens(t, v.MountPoint)
	ej, err := app.Eject(ctx, v, EjectOptions{})
	ejectOpens := count()
	if err != nil || ej.Saved == nil {
		t.Fatalf("eject: %+v, %v; want it saved", ej, err)
	}
	t.Logf("folders of %d listed: save %d, eject %d", folders+1, saveOpens, ejectOpens)
	if ej.Saved.ByFeed || ej.Saved.CopiedFiles != 1 {
		t.Errorf("the eject's save: %+v; want one file copied by a walk", ej.Saved.Result)
	}
	if ejectOpens < folders+1 || ejectOpens > folders+1+min(saveOpens, 10)+2 {
		t.Errorf("the eject listed %d folders of %d, the save %d: want one walk of the disk", ejectOpens, folders+1, saveOpens)
	}
}

// dirOpens counts the folders under root opened from now until the
// returned func is called (inotify IN_OPEN on each folder itself).
func dirOpens(t *testing.T, root string) (count func() int) {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	var dirs []string // listed first: the walk's own opens are not counted
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := unix.InotifyAddWatch(fd, d, unix.IN_OPEN|unix.IN_ONLYDIR); err != nil {
			t.Fatal(err)
		}
	}
	return func() int {
		n := 0
		buf := make([]byte, 64<<10)
		for {
			got, err := unix.Read(fd, buf)
			if errors.Is(err, unix.EAGAIN) {
				return n
			}
			if err != nil {
				t.Fatal(err)
			}
			for off := 0; off+unix.SizeofInotifyEvent <= got; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				if ev.Mask&unix.IN_OPEN != 0 && ev.Mask&unix.IN_ISDIR != 0 && ev.Len == 0 {
					n++ // the folder itself, not a folder in it
				}
				off += unix.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}

// TestKeepIsItsFeedsFirstWalk: `rambar keep NAME --save-every auto` served
// by the app (the agent) on a plain disk of folders: the app follows the
// disk before the keep's first save, so that save (which must walk: the
// disk was never saved) is the walk the feed needs, and the first
// continuous save after it reads only what the feed names. The work is
// counted as the folders listed from the keep until that first
// continuous save: one walk's. Before, the app began following only at
// its next look and its first save walked the disk again.
func TestKeepIsItsFeedsFirstWalk(t *testing.T) {
	const folders = 200
	eng, paths := linux.New(run.System(), linux.WithMountRoot(realRoot(t))), ramdiskPaths(t)
	app := &Service{Engine: eng, Paths: paths}
	c, err := app.Create(context.Background(), CreateRequest{Input: ramdisk.Input{Name: "Plain", Size: "16M"}})
	if err != nil {
		t.Fatal(err)
	}
	v := listed(t, app, c.Volume)
	for i := range folders {
		if err := os.Mkdir(filepath.Join(v.MountPoint, fmt.Sprintf("d%03d", i)), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	saved := autosaving(t, app)

	count := dirOpens(t, v.MountPoint)
	if _, err := app.Keep(ctx, KeepRequest{Name: "Plain", Contents: keeper.Options{Mode: ramdisk.Keep, SaveEvery: keeper.AutosaveAuto}}); err != nil {
		t.Fatal(err)
	}
	var first keeper.Result
	select {
	case first = <-saved:
	case <-time.After(20 * time.Second):
		t.Fatal("no continuous save after the keep")
	}
	opens := count()
	t.Logf("folders of %d listed by the keep and the first continuous save: %d; that save %+v", folders+1, opens, first.Result)
	if !first.ByFeed || opens > folders+1+folders/10 {
		t.Errorf("listed %d folders of %d, the first continuous save by the feed: %v; want one walk, the keep's", opens, folders+1, first.ByFeed)
	}
	at := time.Now()
	if err := os.WriteFile(filepath.Join(v.MountPoint, "d100", "f"), []byte("ab"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-saved:
		if r.Unchanged || !r.ByFeed {
			t.Errorf("the change was saved as %+v, want by the feed", r.Result)
		}
		if d := time.Since(at); d > keeper.ContinuousBusy+2*time.Second {
			t.Errorf("the change was saved %s after it was made", d.Round(time.Millisecond))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the change was never saved")
	}
}
