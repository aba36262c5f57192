package selftest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"rambar/changefeed"
	"rambar/keeper"
	"rambar/ramdisk"
)

// feedWait bounds how long the feed may take to name a change.
const feedWait = 10 * time.Second

// Feed checks, on the kept disk Kept made again, that its change feed
// hears the disk: RAMBar writes .fseventsd/no_log on every disk it makes
// on macOS (so the system keeps no event log there), which must not
// silence the live FSEvents stream continuous saves follow; on Linux the
// feed is inotify. It follows the disk, saves it (a walk, which gives the
// feed every folder), writes a file in a folder and changes one at the
// top, waits for the feed to count them with no scan, and saves again by
// the feed: that save must read only what changed and hold both. Needs
// kept.roundtrip.
func (r *Runner) Feed(ctx context.Context) Check {
	const name = "kept.feed"
	return r.keptCheck(name, func(v ramdisk.Volume, k *keeper.Keeper) Check {
		r.logf("following the kept disk by its change feed")
		f, err := followSaved(ctx, k, v)
		if err != nil {
			return Failf(name, "%v", err)
		}
		defer f.Close()
		if err := os.WriteFile(filepath.Join(v.MountPoint, testTree, "fed.txt"), []byte("heard\n"), 0o644); err != nil {
			return Failf(name, "%v", err)
		}
		if err := os.WriteFile(filepath.Join(v.MountPoint, "top-fed.txt"), []byte("heard\n"), 0o644); err != nil {
			return Failf(name, "%v", err)
		}
		heard, res, err := saveHeard(ctx, k, v, f, heardChanges{paths: 2, what: "the changes", it: "them",
			unheard: func(u keeper.Unsaved) error {
				return fmt.Errorf("the feed did not hear two files written on the disk in %s (%+v): continuous saves would not follow it", feedWait, u)
			}})
		if err != nil {
			return Failf(name, "%v", err)
		}
		if dirty, err := k.Dirty(v); err != nil || dirty {
			return Failf(name, "a walk finds the disk unsaved after the save by the feed (%v)", err)
		}
		c := Passf(name, "the feed heard 2 files written in %s; the save by it copied %d and took %s", ramdisk.ShortDuration(heard), res.CopiedFiles, ramdisk.ShortDuration(res.Took))
		c.Rule = "a kept disk's change feed (FSEvents on macOS, where RAMBar writes .fseventsd/no_log on the disk; inotify on Linux) hears files written on it, and the next save by it reads only what changed and holds them"
		c.Data = map[string]any{"heard_ns": heard, "save": res, "feed_mode": changefeed.ModeFromEnv().String()}
		return c
	})
}

// keptCheck runs check, timed, on the kept disk Kept made again and its
// keeper: the check is skipped when there is none (kept.roundtrip
// failed) and fails when the keeper cannot be had.
func (r *Runner) keptCheck(name string, check func(v ramdisk.Volume, k *keeper.Keeper) Check) Check {
	return Timed(func() Check {
		if r.kept == nil {
			return Skipf(name, "no kept disk (kept.roundtrip failed)")
		}
		k, err := r.Service().Keeper()
		if err != nil {
			return Failf(name, "%v", err)
		}
		return check(*r.kept, k)
	})
}

// followSaved follows the kept disk v by its change feed and saves it
// once (a walk, which gives the feed every folder), as kept.feed and
// kept.openwrite begin; its error is the check's failure. The caller
// closes what it returns.
func followSaved(ctx context.Context, k *keeper.Keeper, v ramdisk.Volume) (*keeper.Following, error) {
	f, err := k.Follow(v)
	if err != nil {
		return nil, fmt.Errorf("could not follow the disk: %w", err)
	}
	if _, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f}); err != nil {
		f.Close()
		return nil, fmt.Errorf("first save: %w", err)
	}
	return f, nil
}

// heardChanges is what a feed check waits for the feed to hear, and how
// its failures name it.
type heardChanges struct {
	paths int // the changed paths the feed must count, and the save by it copy at the least
	// what and it name the changes in the failure of a save that walked
	// the disk or missed them: "the changes", "them".
	what, it string
	// unheard is the failure when the feed has not counted them in
	// feedWait, u its last count.
	unheard func(u keeper.Unsaved) error
}

// saveHeard waits up to feedWait for the feed f to count h.paths changed
// paths on v, then saves v by it: that save must go by the feed and copy
// h.paths files at the least. It returns how long the feed took to hear
// them and the save; its error is the check's failure.
func saveHeard(ctx context.Context, k *keeper.Keeper, v ramdisk.Volume, f *keeper.Following, h heardChanges) (time.Duration, keeper.Result, error) {
	start := time.Now()
	for u := f.Unsaved(); !(u.Known && u.Paths >= h.paths); u = f.Unsaved() {
		if time.Since(start) > feedWait {
			return 0, keeper.Result{}, h.unheard(u)
		}
		time.Sleep(20 * time.Millisecond)
	}
	heard := time.Since(start)
	res, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f})
	if err != nil {
		return heard, res, fmt.Errorf("save by the feed: %w", err)
	}
	if !res.ByFeed || res.CopiedFiles < h.paths {
		return heard, res, fmt.Errorf("the save after the feed heard %s walked the disk or missed %s (by the feed: %v, %d files copied)", h.what, h.it, res.ByFeed, res.CopiedFiles)
	}
	return heard, res, nil
}
