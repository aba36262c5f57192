package disks

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
)

// TestSavesWhileFolderTreesVanish: a kept disk saved continuously and
// followed by the menu-bar app holds a deep tree of node_modules folders;
// whole trees of them are removed and made again without pause (git clean
// -fdX, then an install) while the app saves by the feed (continuously and
// on request) and the CLI saves by walking the disk. A folder named by the
// feed or listed by its parent may be gone, its parent too, by the time it
// is read: that is a path that vanished during the save, never a failed
// save. Once the churn stops, every snapshot kept restores, each file
// whole.
func TestSavesWhileFolderTreesVanish(t *testing.T) {
	root := realRoot(t)
	eng := linux.New(run.System(), linux.WithMountRoot(root))
	paths := ramdiskPaths(t)
	app, cli := &Service{Engine: eng, Paths: paths}, &Service{Engine: eng, Paths: paths}
	v := listed(t, cli, keptDisk(t, cli, "PerfC", keeper.AutosaveAuto))
	const packages = 4
	for p := range packages {
		if err := install(v.MountPoint, p); err != nil {
			t.Fatal(err)
		}
	}
	installed := time.Now()

	ctx, cancel := context.WithCancel(context.Background())
	var failed []string
	var mu sync.Mutex
	fail := func(who string, err error) {
		if err != nil && ctx.Err() == nil {
			mu.Lock()
			failed = append(failed, who+": "+err.Error())
			mu.Unlock()
		}
	}
	var byFeed, walked atomic.Int64
	count := func(r keeper.Result, err error) {
		switch {
		case err != nil:
		case r.ByFeed:
			byFeed.Add(1)
		default:
			walked.Add(1)
		}
	}
	var wg sync.WaitGroup
	run := func(f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() }
	run(func() {
		app.Autosave(ctx, time.Hour, func(_ string, r keeper.Result, err error) { fail("continuous save", err); count(r, err) })
	})
	waitFollowed(t, app, v)
	run(func() { // the menu's Save Now: by the feed
		for ctx.Err() == nil {
			r, err := app.Save(ctx, v, SaveOptions{})
			fail("save by the app", err)
			count(r, err)
		}
	})
	run(func() { // `rambar save` now and then: a walk (the app's next save walks too)
		for ctx.Err() == nil {
			r, err := cli.Save(ctx, v, SaveOptions{})
			fail("save by the CLI", err)
			count(r, err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	})
	rounds := 0
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); rounds++ {
		if rounds >= 200 && byFeed.Load() >= 10 && walked.Load() >= 10 {
			break
		}
		p := rounds % packages
		if err := os.RemoveAll(filepath.Join(v.MountPoint, fmt.Sprintf("pkg%d", p), "node_modules")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rounds%5) * 20 * time.Millisecond)
		if err := install(v.MountPoint, p); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rounds%7) * 30 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	t.Logf("%d rounds of clean and install; %d saves by the feed, %d walks", rounds, byFeed.Load(), walked.Load())
	for _, f := range failed {
		t.Error(f)
	}
	if byFeed.Load() == 0 || walked.Load() == 0 {
		t.Errorf("%d saves by the feed and %d walks: want both", byFeed.Load(), walked.Load())
	}

	k, _ := cli.Keeper()
	snaps, err := k.Snapshots("PerfC")
	if err != nil || len(snaps) < 2 {
		t.Fatalf("snapshots %v: %v", snaps, err)
	}
	for _, sn := range snaps {
		if _, err := cli.Restore(context.Background(), v, RestoreOptions{Snapshot: sn.ID, Force: true}); err != nil {
			t.Errorf("restore %s: %v", sn.ID, err)
			continue
		}
		n, err := checkInstalled(v.MountPoint)
		if err != nil || n == 0 && sn.Time.After(installed) {
			t.Errorf("snapshot %s restored %d files: %v", sn.ID, n, err)
		}
	}
}

// install makes package p's node_modules on the disk at mp: a tree five
// folders deep, three folders wide, two files in each folder, each file
// holding its own path.
func install(mp string, p int) error {
	var mk func(dir string, depth int) error
	mk = func(dir string, depth int) error {
		if err := os.MkdirAll(filepath.Join(mp, dir), 0o755); err != nil {
			return err
		}
		for _, f := range []string{"index.js", "package.json"} {
			rel := dir + "/" + f
			if err := os.WriteFile(filepath.Join(mp, rel), []byte(rel), 0o644); err != nil {
				return err
			}
		}
		if depth == 0 {
			return nil
		}
		for i := range 3 {
			if err := mk(fmt.Sprintf("%s/node_modules/dep%d", dir, i), depth-1); err != nil {
				return err
			}
		}
		return nil
	}
	return mk(fmt.Sprintf("pkg%d", p), 4)
}

// checkInstalled checks that every file on the disk at mp holds its own
// path, or nothing yet (a version that existed), and counts them.
func checkInstalled(mp string) (int, error) {
	n := 0
	err := filepath.WalkDir(mp, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(mp, p)
		if !strings.HasPrefix(rel, "pkg") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(b) > 0 && string(b) != filepath.ToSlash(rel) { // empty: saved between its making and its write
			return fmt.Errorf("%s holds %q", rel, b)
		}
		n++
		return nil
	})
	return n, err
}
