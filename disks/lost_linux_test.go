package disks

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestLostOrEjected: a disk this data folder ejected is not lost, even
// asked while the eject still holds its lock; one unmounted behind
// RAMBar's back is; one made again under its name is not.
func TestLostOrEjected(t *testing.T) {
	ctx := context.Background()
	mine, _ := twoDataFolders(t)
	v := keptDisk(t, mine, "Work", 0)
	local := localOf(v)
	release, err := mine.lock(ctx, "Work", "ejecting")
	if err != nil {
		t.Fatal(err)
	}
	if err := mine.Engine.Eject(ctx, v, false); err != nil { // unmounted, its record not yet dropped
		t.Fatal(err)
	}
	lost := make(chan bool, 1)
	go func() { lost <- mine.Lost(ctx, v) }()
	time.Sleep(300 * time.Millisecond)
	mine.forgetEjected(v, local, false)
	release()
	if <-lost {
		t.Error("a disk this data folder ejected is lost")
	}
	g := keptDisk(t, mine, "Gone", 0)
	if err := syscall.Unmount(g.MountPoint, syscall.MNT_DETACH); err != nil {
		t.Fatal(err)
	}
	if !mine.Lost(ctx, g) {
		t.Error("a disk unmounted outside RAMBar is not lost")
	}
	again := keptDisk(t, mine, "Again", 0)
	if _, err := mine.Eject(ctx, again, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	keptDisk(t, mine, "Again", 0)
	if mine.Lost(ctx, again) {
		t.Error("a disk made again under its name is lost")
	}
}
