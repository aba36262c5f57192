package selftest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
)

// HardLink checks, on the kept disk Kept made again, that a hard link
// made on it reaches the save that follows the change feed: a file is
// written and saved, a second name is given to it, the feed must hear the
// change, and after the save by it a walk finds nothing unsaved. Whether
// the feed reported the link itself (Changes.Linked: inotify does; on
// macOS, FSEvents' ItemIsHardlink flag) is in the check's data, which the
// first run on a Mac answers. Needs kept.roundtrip.
func (r *Runner) HardLink(ctx context.Context) Check {
	const name = "kept.hardlink"
	return r.keptCheck(name, func(v ramdisk.Volume, k *keeper.Keeper) Check {
		first := filepath.Join(v.MountPoint, testTree, "linked.txt")
		second := filepath.Join(v.MountPoint, testTree, "linked-again.txt")
		if err := os.WriteFile(first, []byte("one file, two names\n"), 0o644); err != nil {
			return Failf(name, "%v", err)
		}
		if err := os.Remove(second); err != nil && !os.IsNotExist(err) {
			return Failf(name, "%v", err) // a run before this one's link
		}
		r.logf("following the kept disk and giving a file a second name")
		f, err := followSaved(ctx, k, v)
		if err != nil {
			return Failf(name, "%v", err)
		}
		defer f.Close()
		if err := os.Link(first, second); err != nil {
			return Failf(name, "link %s: %v", second, err)
		}
		start := time.Now()
		u := f.Unsaved()
		for ; !(u.Known && u.Paths >= 1) && u.Lost == ""; u = f.Unsaved() {
			if time.Since(start) > feedWait {
				return Failf(name, "the feed did not hear a hard link made on the disk in %s (%+v)", feedWait, u)
			}
			time.Sleep(20 * time.Millisecond)
		}
		heard := time.Since(start)
		res, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f})
		if err != nil {
			return Failf(name, "save after the link: %v", err)
		}
		if dirty, err := k.Dirty(v); err != nil || dirty {
			return Failf(name, "a walk finds the disk unsaved after the save that followed the link (%v): the link was missed", err)
		}
		a, errA := os.Stat(first)
		b, errB := os.Stat(second)
		if errA != nil || errB != nil || !os.SameFile(a, b) {
			return Failf(name, "the two names are not one file any more (%v, %v)", errA, errB)
		}
		c := Passf(name, "the feed heard the link in %s (%s); the save after it holds both names (%s)",
			ramdisk.ShortDuration(heard), linkedWords(u), savedHow(res))
		c.Rule = "a hard link made on a followed disk is heard by its change feed and held by the next save; whether the feed names the file as linked (inotify; FSEvents' ItemIsHardlink) is recorded"
		c.Data = map[string]any{"heard_ns": heard, "linked_reported": u.Linked, "lost": u.Lost, "save": res}
		return c
	})
}

// linkedWords says what the feed made of a hard link.
func linkedWords(u keeper.Unsaved) string {
	switch {
	case u.Lost != "":
		return "as a lost feed: " + u.Lost
	case u.Linked > 0:
		return fmt.Sprintf("%d file reported linked", u.Linked)
	}
	return "as a changed folder, no file reported linked"
}

// savedHow says how a save went: by the feed or by a walk.
func savedHow(res keeper.Result) string {
	if res.ByFeed {
		return fmt.Sprintf("by the feed, %d files copied", res.CopiedFiles)
	}
	return fmt.Sprintf("by a walk, %d files copied", res.CopiedFiles)
}
