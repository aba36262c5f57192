package keeper

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"rambar/snapshot"
	"rambar/snapstore"
)

// TestQuietSaveTakesNoLook: saves of a disk nobody writes meanwhile are
// told it held still by the watch, without a look at every path; a save
// while another process rewrites a file looks, and its snapshot is whole.
func TestQuietSaveTakesNoLook(t *testing.T) {
	ctx := context.Background()
	k, v := liveDisk(t, "Quiet", "64m", 8)
	for i := 0; i < 300; i++ {
		write(t, v.MountPoint, fmt.Sprintf("d/%d/f%d", i%7, i), "x")
	}
	for i := 0; i < 3; i++ {
		write(t, v.MountPoint, "notes/n.txt", fmt.Sprint("quiet ", i))
		before := snapshot.Looks.Load()
		res, err := k.Save(ctx, v, SaveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.InUse != nil || res.Unchanged {
			t.Fatalf("save %d: %+v, want a consistent new snapshot", i, res)
		}
		if n := snapshot.Looks.Load() - before; n != 0 {
			t.Errorf("save %d of a quiet disk looked %d times", i, n)
		}
	}
	big := bigVersioned(t, v.MountPoint)
	w := startHelper(t, "rewrite", big)
	for deadline := time.Now().Add(time.Minute); ; { // the helper has started writing
		if n, _ := versionOf(big); n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	// A save as quick as the rewriter's pause between two versions (1 ms)
	// may see nothing move, rightly; on a loaded machine the rewriter may
	// not run for a few saves at all. Within 20 saves one must look.
	before := snapshot.Looks.Load()
	for i := 0; i < 20 && snapshot.Looks.Load() == before; i++ {
		write(t, v.MountPoint, "notes/n.txt", fmt.Sprint("busy ", i))
		if _, err := k.Save(ctx, v, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	stopHelper(w)
	if snapshot.Looks.Load() == before {
		t.Error("saves while a file was rewritten never looked")
	}
	restoreEach(t, k, v, "64m", func(s snapstore.Snapshot, root string) {
		if _, err := versionOf(filepath.Join(root, "data/big.bin")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("snapshot %s holds a version of big.bin that never existed: %v", s.ID, err)
		}
	})
}
