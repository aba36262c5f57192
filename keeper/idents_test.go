package keeper

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// TestRestoredDiskIsUnchanged: a disk just restored holds its snapshot, so
// a save right after has nothing to do, for every kind of path (the
// restore notes identities as it sets metadata instead of scanning), and
// a file changed after the restore is seen.
func TestRestoredDiskIsUnchanged(t *testing.T) {
	f := newFixture(t)
	f.k.Setup("R", Options{Mode: ramdisk.Keep})
	v := f.create("R")
	for _, p := range []string{"a/b/c.txt", "a/b/d.txt", "e.txt", "big/x"} {
		write(t, v.MountPoint, p, "data of "+p)
	}
	os.Symlink("e.txt", filepath.Join(v.MountPoint, "link"))
	os.Link(filepath.Join(v.MountPoint, "a/b/c.txt"), filepath.Join(v.MountPoint, "a/hard"))
	unix.Mkfifo(filepath.Join(v.MountPoint, "a/fifo"), 0o640)
	os.WriteFile(filepath.Join(v.MountPoint, "big/packed-alone"), make([]byte, 3<<20), 0o600)
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	f.eject(v)
	v = f.create("R")
	if _, err := f.k.Restore(f.ctx, v, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil || !res.Unchanged {
		t.Fatalf("save right after a restore = %+v, %v; want unchanged", res, err)
	}
	write(t, v.MountPoint, "a/b/d.txt", "changed")
	res, err = f.k.Save(f.ctx, v, SaveOptions{})
	if err != nil || res.Unchanged || res.CopiedFiles != 1 {
		t.Fatalf("save after a change = %+v, %v; want one file copied", res, err)
	}
}
