package disks

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"
)

// noHideEngine is the Linux engine without a hidden copy, as macOS is: a
// disk in place is written back by uncovering its folder.
type noHideEngine struct{ *linux.Engine }

func (noHideEngine) HideFolder(context.Context, string, string) error {
	return ramdisk.ErrUnsupported
}

// TestInPlaceWithoutHiddenCopy runs the macOS way on real mounts: no
// hidden copy, so a save uncovers the folder, writes back through its
// path and covers it again; a shell inside the folder keeps the save from
// running and is named; the eject writes back and uncovers.
func TestInPlaceWithoutHiddenCopy(t *testing.T) {
	f := newInPlace(t, false)
	f.s.Engine = noHideEngine{f.s.Engine.(*linux.Engine)}
	ctx := context.Background()
	c := f.create("Mac")
	if r, _ := f.s.readInPlace("Mac"); r.Hidden != "" || !isTmpfs(f.folder) {
		t.Fatalf("record %+v, covered %v", r, isTmpfs(f.folder))
	}
	write(t, filepath.Join(f.folder, "index.html"), "saved")
	if _, err := f.s.Save(ctx, c.Volume, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if !isTmpfs(f.folder) {
		t.Fatal("not covered again after the save")
	}
	write(t, filepath.Join(f.folder, "index.html"), "at eject")
	sleep := exec.Command("sleep", "600")
	sleep.Dir = f.folder
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleep.Process.Kill()
	_, err := f.s.Save(ctx, c.Volume, SaveOptions{})
	var be *ramdisk.BusyError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "sleep") || !isTmpfs(f.folder) {
		t.Fatalf("save with a shell inside: %v (covered %v)", err, isTmpfs(f.folder))
	}
	sleep.Process.Kill()
	sleep.Wait()
	if _, err := f.s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := files(t, f.folder)["index.html"]; got != "at eject" || isTmpfs(f.folder) {
		t.Fatalf("after the eject the folder holds %q (covered %v)", got, isTmpfs(f.folder))
	}
}

// TestInPlaceUnderSudo: run through sudo for uid 65534, a folder of that
// user's is mirrored in place: the disk over it is theirs, and what is
// written back through the hidden copy belongs to them, not to root.
func TestInPlaceUnderSudo(t *testing.T) {
	t.Setenv("SUDO_UID", "65534")
	t.Setenv("SUDO_GID", "65534")
	f := newInPlace(t, false)
	filepath.WalkDir(filepath.Dir(f.folder), func(p string, _ fs.DirEntry, _ error) error { return os.Lchown(p, 65534, 65534) })
	ctx := context.Background()
	c := f.create("Nobody")
	var st unix.Stat_t
	if err := unix.Stat(f.folder, &st); err != nil || st.Uid != 65534 {
		t.Errorf("the disk over the folder belongs to uid %d", st.Uid)
	}
	write(t, filepath.Join(f.folder, "src", "new.go"), "package new") // made by root
	if _, err := f.s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"src/new.go", "index.html"} {
		if unix.Lstat(filepath.Join(f.folder, p), &st) != nil || st.Uid != 65534 || st.Gid != 65534 {
			t.Errorf("%s belongs to %d:%d after the write-back", p, st.Uid, st.Gid)
		}
	}
}

// TestInPlaceMarkerRemoved: `git clean -x` in the folder removes the disk's
// marker, which the folder's path shows; the disk is still known by its
// record and the mount over the folder: autosave and eject write it back.
func TestInPlaceMarkerRemoved(t *testing.T) {
	f := newInPlace(t, false)
	ctx := context.Background()
	c := f.create("Clean")
	os.Remove(filepath.Join(f.folder, keeper.MarkerName))
	write(t, filepath.Join(f.folder, "index.html"), "edited after git clean")
	if err := f.s.SaveAll(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.s.inPlaceKey("Clean"), "index.html")); string(b) != "edited after git clean" {
		t.Errorf("the autosave wrote back %q", b)
	}
	os.Remove(filepath.Join(f.folder, keeper.MarkerName))
	write(t, filepath.Join(f.folder, "index.html"), "edited again")
	if _, err := f.s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := files(t, f.folder)["index.html"]; got != "edited again" {
		t.Fatalf("after the eject the folder holds %q", got)
	}
}
