//go:build linux

package keeper

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The load, the write-back and the refresh write Mirror paths by one
// applier (package foldersync); these are the rules they once kept each
// their own way.

// A refresh writes a file's bytes with Keeper.CopyFile (ditto on macOS)
// where it is set, as the load does, and checks what it wrote.
func TestRefreshUsesCopyFile(t *testing.T) {
	f := newMirror(t, map[string]string{"a.txt": "a", "sub/b.txt": "b"})
	var mu sync.Mutex
	var copied []string
	f.k.CopyFile = func(_ context.Context, src, dst string) error {
		mu.Lock()
		copied = append(copied, src)
		mu.Unlock()
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	}
	write(t, f.folder, "a.txt", "a, edited in the folder")
	write(t, f.folder, "sub/new.txt", "new in the folder")
	f.refresh()
	for _, p := range []string{"a.txt", "sub/new.txt"} {
		found := false
		for _, c := range copied {
			found = found || c == f.inFolder(p)
		}
		if !found {
			t.Errorf("%s was not written with CopyFile (it copied %v)", p, copied)
		}
	}
	if read(t, f.disk("a.txt")) != "a, edited in the folder" || read(t, f.disk("sub/new.txt")) != "new in the folder" {
		t.Error("the refresh did not take the folder's versions")
	}
	noCopies(t, f.v.MountPoint)
	sameTree(t, timelessDirs(digest(t, f.folder)), timelessDirs(digest(t, f.v.MountPoint)))
}

// A temporary name an interrupted write-back or refresh of another disk
// left in a folder (of this form or an earlier one) is never loaded, nor
// taken by a refresh, nor counted as a change kept in the folder.
func TestLoadAndRefreshSkipTemporaryNames(t *testing.T) {
	temps := []string{".rambar-tmp-0123456789abcdef", ".rambar-writeback-0123456789abcdef", ".rambar-refresh-0123456789abcdef",
		"sub/.rambar-tmp-fedcba9876543210", ".rambar-tmp-00000000000000aa/inner.txt", ".rambar-tmp-00000000000000aa"}
	f := newMirrorFill(t, func(folder string) {
		write(t, folder, "keep.txt", "kept")
		for _, p := range temps {
			if !strings.HasSuffix(p, "aa") {
				write(t, folder, p, "a temporary file")
			}
		}
	})
	for _, p := range temps {
		if _, err := os.Lstat(f.disk(p)); err == nil {
			t.Errorf("the load copied %s onto the disk", p)
		}
	}
	write(t, f.folder, "sub/.rambar-tmp-1111111111111111", "another")
	if n := f.changes(); n != 0 {
		t.Errorf("%d changes kept in the folder, want none (temporary names)", n)
	}
	f.refresh()
	for _, p := range append(temps, "sub/.rambar-tmp-1111111111111111") {
		if _, err := os.Lstat(f.disk(p)); err == nil {
			t.Errorf("the refresh took %s onto the disk", p)
		}
	}
	if read(t, f.disk("keep.txt")) != "kept" {
		t.Error("keep.txt was not loaded")
	}
}

// Access times go across as modification times do, both ways: the load
// and a refresh give the disk the folder's access time (as it was before
// they read the file), as the write-back gives the folder the disk's. (A
// symlink's is not kept: reading the link, as every save does, moves it.)
func TestMirrorKeepsAccessTimes(t *testing.T) {
	mtime := time.Now().Add(-48 * time.Hour).Truncate(time.Second)
	atime := time.Now().Add(-time.Hour).Truncate(time.Second)
	setTimes := func(p string, a time.Time) {
		t.Helper()
		ts := []unix.Timespec{unix.NsecToTimespec(a.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			t.Fatal(err)
		}
	}
	atimeOf := func(p string) time.Time {
		t.Helper()
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		return time.Unix(0, st.Atim.Nano())
	}
	f := newMirrorFill(t, func(folder string) {
		write(t, folder, "loaded.txt", "loaded")
		setTimes(filepath.Join(folder, "loaded.txt"), atime)
	})
	if got := atimeOf(f.disk("loaded.txt")); !got.Equal(atime) {
		t.Errorf("the load gave the disk's loaded.txt access time %v, want the folder's %v", got, atime)
	}
	write(t, f.folder, "taken.txt", "taken by a refresh")
	write(t, f.folder, "loaded.txt", "edited in the folder")
	setTimes(f.inFolder("taken.txt"), atime.Add(time.Minute))
	setTimes(f.inFolder("loaded.txt"), atime.Add(2*time.Minute))
	f.refresh()
	for p, want := range map[string]time.Time{"taken.txt": atime.Add(time.Minute), "loaded.txt": atime.Add(2 * time.Minute)} {
		if got := atimeOf(f.disk(p)); !got.Equal(want) {
			t.Errorf("the refresh gave the disk's %s access time %v, want the folder's %v", p, got, want)
		}
	}
	write(t, f.v.MountPoint, "back.txt", "written back")
	setTimes(f.disk("back.txt"), atime.Add(3*time.Minute))
	f.save()
	if got := atimeOf(f.inFolder("back.txt")); !got.Equal(atime.Add(3 * time.Minute)) {
		t.Errorf("the write-back gave the folder's back.txt access time %v, want the disk's %v", got, atime.Add(3*time.Minute))
	}
}
