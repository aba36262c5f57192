package selftest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"rambar/changefeed"
	"rambar/keeper"
	"rambar/ramdisk"
)

// openWriteName is the file kept.openwrite writes on the kept disk.
const openWriteName = "openwrite.log"

// OpenWrite checks, on the kept disk Kept made again, that a save by the
// change feed holds a file written through a descriptor that is kept open:
// FSEvents reports a write only when the file is closed, so the macOS feed
// must find the files open for writing itself (libproc, else lsof), or a
// log or database that is never closed would be saved only by the hourly
// walk. It follows the disk, saves it (a walk), writes a line through a
// descriptor it does not close, waits for the feed to count the change,
// saves by the feed, then closes the descriptor, puts the disk back from
// the snapshot (a forced restore of the current one) and reads the file:
// it must hold the line. Needs kept.roundtrip. On Linux
// RAMBAR_FEED_MODE=fsevents runs it with the Mac's semantics.
func (r *Runner) OpenWrite(ctx context.Context) Check {
	const name = "kept.openwrite"
	return r.keptCheck(name, func(v ramdisk.Volume, k *keeper.Keeper) Check {
		p := filepath.Join(v.MountPoint, testTree, openWriteName)
		want := "before the save\n"
		if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
			return Failf(name, "%v", err)
		}
		r.logf("writing a file on the kept disk through a descriptor kept open, saving by the feed")
		f, err := followSaved(ctx, k, v)
		if err != nil {
			return Failf(name, "%v", err)
		}
		defer f.Close()
		mode := changefeed.ModeFromEnv()
		w, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return Failf(name, "%v", err)
		}
		defer w.Close()
		line := fmt.Sprintf("written at %s through a descriptor kept open\n", time.Now().Format(time.RFC3339Nano))
		if _, err := w.WriteString(line); err != nil {
			return Failf(name, "write through the open descriptor: %v", err)
		}
		want += line
		heard, res, err := saveHeard(ctx, k, v, f, heardChanges{paths: 1, what: "the file", it: "it",
			unheard: func(u keeper.Unsaved) error {
				return fmt.Errorf("the feed (mode %s) did not hear a file written through a descriptor kept open in %s (%+v): continuous saves would keep its old bytes", mode, feedWait, u)
			}})
		if err != nil {
			return Failf(name, "%v", err)
		}
		if err := errors.Join(w.Close(), f.Close()); err != nil {
			return Failf(name, "close: %v", err)
		}
		if _, err := k.Restore(ctx, v, keeper.RestoreOptions{Force: true}); err != nil {
			return Failf(name, "put the disk back from the snapshot saved by the feed: %v", err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != want {
			return Failf(name, "the snapshot saved by the feed holds %q, not the line written through the open descriptor (%v)", got, err)
		}
		c := Passf(name, "the feed (mode %s) heard a file written through a descriptor kept open in %s; the save by it copied %d and its snapshot holds the line", mode, ramdisk.ShortDuration(heard), res.CopiedFiles)
		c.Rule = "a file written through a descriptor kept open (a log, a database) is saved by the change feed although FSEvents reports a write only at close: the feed finds the files open for writing (libproc, else lsof), and the snapshot holds the new bytes"
		c.Data = map[string]any{"heard_ns": heard, "save": res, "feed_mode": mode.String()}
		return c
	})
}
