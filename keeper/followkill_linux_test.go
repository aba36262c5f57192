//go:build linux

package keeper

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/ramdisk"
	"rambar/snapstore"
)

// envFollowChild runs the test binary as a menu-bar app saving one disk
// continuously by its change feed, until killed.
const envFollowChild = "RAMBAR_FOLLOW_KILL_CHILD"

// followChild follows the disk (data and volume as the crash child's),
// then changes a few files and saves by the feed, again and again.
func followChild() int {
	k := NewKeeper(os.Getenv(envData))
	k.IsMounted = func(string) bool { return true }
	v := ramdisk.Volume{Name: "Crash", MountPoint: os.Getenv(envVolume)}
	f, err := k.Follow(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, "follow:", err)
		return 1
	}
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	for round := 0; ; round++ {
		for range 1 + r.Intn(8) {
			i := r.Intn(3000)
			rel := fmt.Sprintf("dir%d/sub%d/file%d", i%7, i%13, i)
			os.WriteFile(filepath.Join(v.MountPoint, rel), []byte(fmt.Sprintf("changed %s %d\n", rel, round)), 0o644)
		}
		if _, err := k.Save(context.Background(), v, SaveOptions{Follow: f}); err != nil {
			fmt.Fprintln(os.Stderr, "save by the feed:", err)
			return 1
		}
	}
}

// TestContinuousSavesSurviveKill9: the app saving a disk by its change
// feed, a few files changed before each save, is killed with SIGKILL at a
// random moment, 24 times. After each kill the store's current snapshot
// restores whole, every file in it a version that existed (its first
// contents or one change, never a mix); the next start follows the disk
// anew and its first save walks it, and the saved state is the disk.
func TestContinuousSavesSurviveKill9(t *testing.T) {
	ctx := context.Background()
	base := mountTmpfs(t, "512m")
	vol, data := filepath.Join(base, "vol"), filepath.Join(base, "data")
	k := NewKeeper(data)
	k.IsMounted = func(string) bool { return true }
	if _, err := k.Setup("Crash", Options{Mode: ramdisk.Keep, Snapshots: 4, SaveEvery: AutosaveAuto}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(vol, 0o700)
	v := ramdisk.Volume{Name: "Crash", MountPoint: vol}
	if _, err := k.Load(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	crashTree(t, vol, 1, 3000)
	if _, err := k.Save(ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(26))
	byFeed := 0
	for kill := range 24 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envFollowChild+"=1", envData+"="+data, envVolume+"="+vol, "GORACE=atexit_sleep_ms=0")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(100+r.Intn(900)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("kill %d: the child ended by itself: %v", kill, err)
		}
		out := t.TempDir()
		if _, err := k.store(mustState(t, k, "Crash")).Restore(ctx, "", out, "", nil); err != nil {
			t.Fatalf("kill %d: the current snapshot does not restore: %v", kill, err)
		}
		files := 0
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() || d.Name() == MarkerName {
				return err
			}
			rel, _ := filepath.Rel(out, p) // after/restart is the parent's: the digest below checks it
			b, _ := os.ReadFile(p)
			files++
			if s := string(b); rel != "after/restart" && !oneLetter(s) && !regexp.MustCompile(`^changed `+regexp.QuoteMeta(rel)+` \d+\n$`).MatchString(s) {
				t.Errorf("kill %d: %s holds %q, a version that never existed", kill, rel, s)
			}
			return nil
		})
		if files < 2900 {
			t.Fatalf("kill %d: the snapshot holds %d files of 3000", kill, files)
		}
		// The next start: a new feed, whose first save walks the disk.
		f, err := k.Follow(v)
		if err != nil {
			t.Fatal(err)
		}
		res, err := k.Save(ctx, v, SaveOptions{Follow: f})
		if err != nil || res.ByFeed {
			t.Fatalf("kill %d: the first save after the restart = %+v, %v; want a walk", kill, res.Result, err)
		}
		write(t, vol, "after/restart", fmt.Sprint(kill))
		if res, err = k.Save(ctx, v, SaveOptions{Follow: f}); err != nil || !res.ByFeed || res.Unchanged {
			t.Fatalf("kill %d: the save by the feed after the restart = %+v, %v", kill, res.Result, err)
		}
		byFeed++
		f.Close()
		saved := t.TempDir()
		if _, err := k.store(mustState(t, k, "Crash")).Restore(ctx, "", saved, "", nil); err != nil {
			t.Fatal(err)
		}
		sameTree(t, digest(t, vol), digest(t, saved))
	}
	t.Logf("24 kills held; %d saves by the feed after a restart", byFeed)
}

// oneLetter reports whether s is one letter repeated (or empty): a file as
// crashTree wrote it.
func oneLetter(s string) bool { return s == "" || strings.Count(s, s[:1]) == len(s) }

// TestFeedSavesAndAnotherProcessTakeTurns: the app saves a disk by its
// change feed while another RAMBar (a Keeper of its own on the same data
// folder: `rambar save`) saves it walking, both while its files change.
// They take turns through the disk's lock: no save fails, every snapshot
// kept restores whole, no save of the app goes by the feed once the other
// made a new snapshot (it walks: the current snapshot is not the one it
// followed from), and the last saved state is the disk.
func TestFeedSavesAndAnotherProcessTakeTurns(t *testing.T) {
	ctx := context.Background()
	base := mountTmpfs(t, "256m")
	vol, data := filepath.Join(base, "vol"), filepath.Join(base, "data")
	app, cli := NewKeeper(data), NewKeeper(data)
	for _, k := range []*Keeper{app, cli} {
		k.IsMounted = func(string) bool { return true }
	}
	if _, err := app.Setup("Turns", Options{Mode: ramdisk.Keep, Snapshots: 40, SaveEvery: AutosaveAuto}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(vol, 0o700)
	v := ramdisk.Volume{Name: "Turns", MountPoint: vol}
	if _, err := app.Load(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	crashTree(t, vol, 3, 1000)
	f, err := app.Follow(v)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	errs := make(chan error, 2)
	var fed, walkedAfterOther int
	go func() {
		for i := range 30 {
			write(t, vol, fmt.Sprintf("app/%d", i%5), fmt.Sprint(i))
			cur, _ := app.store(mustState(t, app, "Turns")).Current()
			follows := f.f.Follows(cur) // false: the other saved since (current only moves on)
			res, err := app.Save(ctx, v, SaveOptions{Follow: f})
			if err != nil {
				errs <- fmt.Errorf("the app's save %d: %w", i, err)
				return
			}
			switch {
			case res.ByFeed && !follows:
				errs <- fmt.Errorf("the app's save %d went by the feed from a snapshot no longer current", i)
				return
			case res.ByFeed:
				fed++
			case i > 0:
				walkedAfterOther++
			}
		}
		errs <- nil
	}()
	go func() {
		for i := range 15 {
			write(t, vol, fmt.Sprintf("cli/%d", i%3), fmt.Sprint(i))
			if _, err := cli.Save(ctx, v, SaveOptions{}); err != nil {
				errs <- fmt.Errorf("the other's save %d: %w", i, err)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		errs <- nil
	}()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	restoreEach(t, app, v, "64m", func(s snapstore.Snapshot, root string) {})
	if _, err := cli.Save(ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	saved := t.TempDir()
	if _, err := app.store(mustState(t, app, "Turns")).Restore(ctx, "", saved, "", nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, digest(t, vol), digest(t, saved))
	if fed == 0 {
		t.Error("no save of the app went by the feed")
	}
	t.Logf("45 saves in turns: %d of the app's by the feed, %d walked after the other's", fed, walkedAfterOther)
}

// TestFeedSavesThroughFullDisks: continuous saves by the feed while the
// disk is filled until it refuses a write (ENOSPC) save it whole; when the
// store's own file system fills, the save fails saying so and keeps the
// last snapshot, the next walks, and once there is room again the saves
// go on by the feed, the saved state the disk.
func TestFeedSavesThroughFullDisks(t *testing.T) {
	ctx := context.Background()
	vol, data := mountFS(t, "tmpfs", "size=8m"), mountFS(t, "tmpfs", "size=24m")
	k := NewKeeper(filepath.Join(data, "data"))
	k.IsMounted = func(string) bool { return true }
	if _, err := k.Setup("Full", Options{Mode: ramdisk.Keep, Snapshots: 2, SaveEvery: AutosaveAuto}); err != nil {
		t.Fatal(err)
	}
	v := ramdisk.Volume{Name: "Full", MountPoint: vol}
	if _, err := k.Load(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	f, err := k.Follow(v)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := k.Save(ctx, v, SaveOptions{Follow: f}); err != nil {
		t.Fatal(err)
	}
	// The disk filled, 256 KiB at a time, saved by the feed as it goes.
	full := false
	for i := 0; !full; i++ {
		err := os.WriteFile(filepath.Join(vol, fmt.Sprintf("fill/%d", i/8), fmt.Sprint(i)), []byte(strings.Repeat("f", 256<<10)), 0o644)
		if errors.Is(err, fs.ErrNotExist) {
			os.MkdirAll(filepath.Join(vol, fmt.Sprintf("fill/%d", i/8)), 0o755)
			continue
		}
		if full = errors.Is(err, syscall.ENOSPC); err != nil && !full {
			t.Fatal(err)
		}
		if i%4 == 0 || full {
			if res, err := k.Save(ctx, v, SaveOptions{Follow: f}); err != nil || !res.ByFeed {
				t.Fatalf("save by the feed of a filling disk (%d written): %+v, %v", i, res.Result, err)
			}
		}
	}
	saved := t.TempDir()
	if _, err := k.store(mustState(t, k, "Full")).Restore(ctx, "", saved, "", nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, digest(t, vol), digest(t, saved))
	// The store's file system filled: a ballast leaves less room than the
	// next change needs.
	var st syscall.Statfs_t
	syscall.Statfs(data, &st)
	ballast := filepath.Join(data, "ballast")
	if err := os.WriteFile(ballast, make([]byte, int64(st.Bavail)*st.Bsize-(1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	before := mustState(t, k, "Full").LastSnapshot
	os.RemoveAll(filepath.Join(vol, "fill/0"))
	os.RemoveAll(filepath.Join(vol, "fill/1"))
	write(t, vol, "big", strings.Repeat("b", 3<<20))
	if _, err := k.Save(ctx, v, SaveOptions{Follow: f}); !errors.Is(err, ramdisk.ErrNoSpace) {
		t.Fatalf("a save into a full store: %v, want ErrNoSpace", err)
	}
	if cur, _ := k.store(mustState(t, k, "Full")).Current(); cur != before {
		t.Fatalf("the failed save moved the current snapshot from %s to %s", before, cur)
	}
	os.Remove(ballast)
	if res, err := k.Save(ctx, v, SaveOptions{Follow: f}); err != nil || res.ByFeed {
		t.Fatalf("the save once there is room = %+v, %v; want a walk after the failed one", res.Result, err)
	}
	write(t, vol, "after", "room again")
	if res, err := k.Save(ctx, v, SaveOptions{Follow: f}); err != nil || !res.ByFeed {
		t.Fatalf("the next save = %+v, %v; want one by the feed", res.Result, err)
	}
	saved = t.TempDir()
	if _, err := k.store(mustState(t, k, "Full")).Restore(ctx, "", saved, "", nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, digest(t, vol), digest(t, saved))
}
