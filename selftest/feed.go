package selftest

import (
	"context"
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
	return Timed(func() Check {
		if r.kept == nil {
			return Skipf(name, "no kept disk (kept.roundtrip failed)")
		}
		v := *r.kept
		k, err := r.Service().Keeper()
		if err != nil {
			return Failf(name, "%v", err)
		}
		r.logf("following the kept disk by its change feed")
		f, err := k.Follow(v)
		if err != nil {
			return Failf(name, "could not follow the disk: %v", err)
		}
		defer f.Close()
		if _, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f}); err != nil {
			return Failf(name, "first save: %v", err)
		}
		if err := os.WriteFile(filepath.Join(v.MountPoint, testTree, "fed.txt"), []byte("heard\n"), 0o644); err != nil {
			return Failf(name, "%v", err)
		}
		if err := os.WriteFile(filepath.Join(v.MountPoint, "top-fed.txt"), []byte("heard\n"), 0o644); err != nil {
			return Failf(name, "%v", err)
		}
		start := time.Now()
		var u keeper.Unsaved
		for u = f.Unsaved(); !(u.Known && u.Paths >= 2); u = f.Unsaved() {
			if time.Since(start) > feedWait {
				return Failf(name, "the feed did not hear two files written on the disk in %s (%+v): continuous saves would not follow it", feedWait, u)
			}
			time.Sleep(20 * time.Millisecond)
		}
		heard := time.Since(start)
		res, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f})
		if err != nil {
			return Failf(name, "save by the feed: %v", err)
		}
		if !res.ByFeed || res.CopiedFiles < 2 {
			return Failf(name, "the save after the feed heard the changes walked the disk or missed them (by the feed: %v, %d files copied)", res.ByFeed, res.CopiedFiles)
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
