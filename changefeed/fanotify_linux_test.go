//go:build linux

package changefeed

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mountTmpfs mounts a tmpfs for the test (tests run as root), unmounted at
// its end.
func mountTmpfs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("rambar-test", dir, "tmpfs", 0, "size=64m,mode=0755"); err != nil {
		t.Fatalf("mount tmpfs (tests run as root): %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// mountZRAM makes an ext4 on a new zram device, as the Linux engine makes
// a compressed disk, mounted for the test; the device is removed at its
// end.
func mountZRAM(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/sys/class/zram-control/hot_add")
	if err != nil {
		t.Fatalf("zram (tests run as root with the zram module): %v", err)
	}
	n := strings.TrimSpace(string(b))
	t.Cleanup(func() {
		os.WriteFile("/sys/block/zram"+n+"/reset", []byte("1"), 0)
		os.WriteFile("/sys/class/zram-control/hot_remove", []byte(n), 0)
	})
	if err := os.WriteFile("/sys/block/zram"+n+"/disksize", []byte("67108864"), 0); err != nil {
		t.Fatalf("zram%s disksize: %v", n, err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", "-m", "0", "/dev/zram"+n).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v %s", err, out)
	}
	dir := t.TempDir()
	if err := unix.Mount("/dev/zram"+n, dir, "ext4", 0, ""); err != nil {
		t.Fatalf("mount ext4 on zram%s: %v", n, err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// inotifyWatches counts the inotify watches this process holds, as
// /proc/self/fdinfo tells them ("inotify wd:" lines).
func inotifyWatches(t *testing.T) int {
	t.Helper()
	return watchesOf(t, "self")
}

// watchesOf counts the inotify watches process pid ("self") holds.
func watchesOf(t *testing.T, pid string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/" + pid + "/fdinfo")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + pid + "/fdinfo/" + e.Name())
		if err != nil {
			continue // closed meanwhile
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "inotify wd:") {
				n++
			}
		}
	}
	return n
}

// TestFanotifyFollowsAWholeDisk: on a tmpfs and on an ext4 on zram (the
// engine's two kinds of disk) a feed opened as root follows the disk with
// one fanotify mark and no inotify watch, and names the folders (and the
// entries) that changed as the inotify feed does: in folders the save's
// walk gave it, in one made since (known by its event) and in one no
// walk opened (found by its handle); RAMBar's own file is no change.
func TestFanotifyFollowsAWholeDisk(t *testing.T) {
	for _, fs := range []struct {
		name  string
		mount func(*testing.T) string
	}{
		{"tmpfs", mountTmpfs},
		{"ext4 on zram", mountZRAM},
	} {
		t.Run(fs.name, func(t *testing.T) {
			root := fs.mount(t)
			for _, d := range []string{"a", "a/b", "c", "old"} {
				if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			f := openWatched(t, root, func(folder, name string) bool { return folder == "." && name == ".marker" }, "a", "a/b", "c")
			if st := f.Status(); st.Kind != KindFanotify || st.Watches != 0 || f.Watched() != 0 {
				t.Fatalf("status %+v, %d watched: want fanotify and no watch", st, f.Watched())
			}
			if n := inotifyWatches(t); n != 0 {
				t.Fatalf("the process holds %d inotify watches, want 0", n)
			}
			changes(t, f, root)
			os.WriteFile(filepath.Join(root, ".marker"), nil, 0o644)
			time.Sleep(50 * time.Millisecond)
			if c := f.Take(); !c.Empty() {
				t.Fatalf("the marker counted as a change: %+v", c)
			}
		})
	}
}

// changes makes each change of a table on the disk at root, followed by
// f, and checks the folders and names f gives for it.
func changes(t *testing.T, f *Feed, root string) {
	t.Helper()
	p := func(rel string) string { return filepath.Join(root, rel) }
	tests := []struct {
		name   string
		do     func() error
		want   map[string]string // folder → a name in it that changed ("": the folder read whole or its own entry)
		linked bool
	}{
		{"write", func() error { return os.WriteFile(p("a/b/x"), []byte("x"), 0o644) }, map[string]string{"a/b": "x"}, false},
		{"rewrite", func() error { return os.WriteFile(p("a/b/x"), []byte("yy"), 0o644) }, map[string]string{"a/b": "x"}, false},
		{"chmod", func() error { return os.Chmod(p("a/b/x"), 0o600) }, map[string]string{"a/b": "x"}, false},
		{"xattr", func() error { return unix.Setxattr(p("a/b/x"), "user.k", []byte("v"), 0) }, map[string]string{"a/b": "x"}, false},
		{"rename across folders", func() error { return os.Rename(p("a/b/x"), p("c/x")) }, map[string]string{"a/b": "x", "c": "x"}, false},
		{"folder's own mode", func() error { return os.Chmod(p("c"), 0o700) }, map[string]string{".": "c", "c": ""}, false},
		{"folder moved", func() error { return os.Rename(p("a/b"), p("c/b")) }, map[string]string{"a": "b", "c": "b"}, false},
		{"folder removed", func() error { return os.RemoveAll(p("c/b")) }, map[string]string{"c": "b"}, false},
		{"at the top", func() error { return os.WriteFile(p("top"), nil, 0o644) }, map[string]string{".": "top"}, false},
		{"hard link", func() error { return os.Link(p("top"), p("a/top")) }, map[string]string{"a": "top"}, true},
		{"in a folder made since the walk", func() error {
			if err := os.MkdirAll(p("n/m"), 0o755); err != nil {
				return err
			}
			return os.WriteFile(p("n/m/y"), nil, 0o644)
		}, map[string]string{".": "n", "n": "m", "n/m": "y"}, false},
		{"in a folder no walk opened", func() error { return os.WriteFile(p("old/z"), nil, 0o644) }, map[string]string{"old": "z"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(); err != nil {
				t.Fatal(err)
			}
			settleFolders(t, f, tt.want)
			time.Sleep(20 * time.Millisecond)
			c := f.Take()
			if c.Lost || c.Paths == 0 || c.Last.IsZero() {
				t.Fatalf("changes %+v", c)
			}
			checkNamed(t, c, tt.want)
			if tt.linked != (len(c.Linked) > 0) {
				t.Errorf("linked %v, want %v", c.Linked, tt.linked)
			}
		})
	}
}

// TestFanotifyOtherMountsOfTheDisk: a change made through another mount
// of the disk's file system (a bind mount of one of its folders) is the
// disk's change, in that folder; a feed opened on such a bind mount (a
// folder of a larger file system) follows it by inotify and says why.
func TestFanotifyOtherMountsOfTheDisk(t *testing.T) {
	root := mountTmpfs(t)
	if err := os.MkdirAll(filepath.Join(root, "sub/deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	bind := t.TempDir()
	if err := unix.Mount(filepath.Join(root, "sub"), bind, "", unix.MS_BIND, ""); err != nil {
		t.Fatalf("bind mount: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(bind, unix.MNT_DETACH) })
	f := openWatched(t, root, nil, "sub", "sub/deep")
	os.WriteFile(filepath.Join(bind, "deep/x"), nil, 0o644)
	c := settle(t, f, func(c Changes) bool { _, ok := c.Folders["sub/deep"]; return ok })
	if c.Lost || len(c.Folders) != 1 {
		t.Fatalf("a write through the bind mount: %+v", c)
	}
	b, err := Open(bind, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if st := b.Status(); st.Kind != KindInotify || !strings.Contains(st.Why, "bind mount") {
		t.Fatalf("a feed on a bind mount of a folder: %+v", st)
	}
}

// TestFanotifyFallsBack: where fanotify would see more than the disk (a
// folder of a larger file system) or the mode asks for the Mac's
// semantics, the feed is inotify's and says why.
func TestFanotifyFallsBack(t *testing.T) {
	tests := []struct {
		name string
		root func(*testing.T) string
		mode Mode
		why  string
	}{
		{"a folder, not a mount", func(t *testing.T) string { return t.TempDir() }, ModeNative, "not a mount point"},
		{"FSEvents test mode", mountTmpfs, ModeFSEvents, "test mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := OpenWith(tt.root(t), Options{Mode: tt.mode, DropEvery: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if st := f.Status(); st.Kind != KindInotify || !strings.Contains(st.Why, tt.why) || st.Budget <= 0 {
				t.Fatalf("status %+v, want inotify because %q", st, tt.why)
			}
		})
	}
}

// TestFanotifyOverflowIsLost: more events than fanotify queues while the
// reader is held (a reader starved of the CPU) make the feed Lost.
func TestFanotifyOverflowIsLost(t *testing.T) {
	root := mountTmpfs(t)
	f := openWatched(t, root, nil)
	c := overflow(t, f, root, "/proc/sys/fs/fanotify/max_queued_events")
	if !strings.Contains(c.Why, "queue") {
		t.Fatalf("lost because %q", c.Why)
	}
}

// TestFanotifyUnknownGoneFolderIsItsParents: an event of a folder the feed
// does not know that is gone before the feed reads it is no loss: the
// folder's removal is an event of its parent, which the feed names (a
// save reads the parent again and finds the folder gone). The feed is
// not Lost, and the top folder is among its changes.
func TestFanotifyUnknownGoneFolderIsItsParents(t *testing.T) {
	root := mountTmpfs(t)
	if err := os.Mkdir(filepath.Join(root, "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := openWatched(t, root, nil) // "old" not walked
	f.reading.Lock()
	os.WriteFile(filepath.Join(root, "old/x"), nil, 0o644)
	os.RemoveAll(filepath.Join(root, "old"))
	f.reading.Unlock()
	c := settle(t, f, func(c Changes) bool { _, top := c.Folders["."]; return top || c.Lost })
	if _, top := c.Folders["."]; c.Lost || !top {
		t.Fatalf("after an unknown folder's removal: %+v, want the top folder changed and nothing lost", c)
	}
}

// TestFanotifyUnmountIsLost: the disk unmounted while followed (the
// feed's mark holds it not: the unmount succeeds) makes the feed Lost.
func TestFanotifyUnmountIsLost(t *testing.T) {
	dir := t.TempDir()
	if err := unix.Mount("rambar-test", dir, "tmpfs", 0, "size=8m"); err != nil {
		t.Fatalf("mount tmpfs (tests run as root): %v", err)
	}
	f := openWatched(t, dir, nil)
	if err := unix.Unmount(dir, 0); err != nil {
		t.Fatalf("unmount a followed disk: %v", err)
	}
	if c := f.Take(); !c.Lost || !strings.Contains(c.Why, "unmounted") {
		t.Fatalf("after the unmount: %+v", c)
	}
}

// TestFeedClosesWhileItsReaderWaits: a feed closed while its reader,
// woken by events, waits for the queue's lock (held by a take, and
// wanted by Close before the reader) closes, for a fanotify feed and for
// an inotify one with marks past its budget.
func TestFeedClosesWhileItsReaderWaits(t *testing.T) {
	tests := []struct {
		name  string
		root  func(*testing.T) string
		kind  string
		marks bool
	}{
		{"fanotify", mountTmpfs, KindFanotify, false},
		{"inotify and marks", func(t *testing.T) string { return t.TempDir() }, KindInotify, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer setWatchBudget(1)()
			root := tt.root(t)
			if err := os.Mkdir(filepath.Join(root, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				f := openWatched(t, root, nil, "d")
				if st := f.Status(); st.Kind != tt.kind || (st.Marks > 0) != tt.marks {
					t.Fatalf("status %+v", st)
				}
				// Close waits for the lock first, then the reader, woken
				// by an event: the lock goes to Close first.
				f.reading.Lock()
				closed := make(chan error, 1)
				go func() { closed <- f.Close() }()
				time.Sleep(10 * time.Millisecond)
				os.WriteFile(filepath.Join(root, "d", "x"+strconv.Itoa(i)), nil, 0o644)
				time.Sleep(10 * time.Millisecond)
				f.reading.Unlock()
				select {
				case err := <-closed:
					if err != nil {
						t.Fatal(err)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("round %d: Close did not return within 5 s", i)
				}
			}
		})
	}
}
