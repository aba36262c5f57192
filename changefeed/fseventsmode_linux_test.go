//go:build linux

package changefeed

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// openMac opens a feed with FSEvents' semantics on root, dropping one take
// in drop, with every folder named watched, and takes its first (lost)
// changes.
func openMac(t *testing.T, root string, drop int, folders ...string) *Feed {
	t.Helper()
	return openWalked(t, root, Options{Mode: ModeFSEvents, DropEvery: drop}, folders...)
}

// findWith makes f's look at the open files use find.
func findWith(f *Feed, find func([]string) ([]string, error)) {
	f.writers.mu.Lock()
	f.writers.find = find
	f.writers.mu.Unlock()
}

// folders lists the folders of c, sorted.
func folders(c Changes) []string {
	var out []string
	for d := range c.Folders {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// quiet is how long a test waits for events that must not come.
const quiet = 100 * time.Millisecond

// TestFSEventsModeHearsAWriteAtClose: a write through a descriptor kept
// open raises no change of the feed's events (as FSEvents: vn_write posts
// nothing), only a write held for the next look at the open files; its
// close does, for its folder, naming no entry.
func TestFSEventsModeHearsAWriteAtClose(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "a"), 0o755)
	f := openMac(t, root, -1, "a")
	w, err := os.Create(filepath.Join(root, "a/log"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	settle(t, f, func(c Changes) bool { return len(c.Folders) > 0 }) // the create
	f.Take()
	f.writers.close() // the feed's events alone from here: no look at the open files
	for range 10 {
		if _, err := w.WriteString("line\n"); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(quiet)
	f.drain()
	if c := f.pending.Peek(); !c.Empty() {
		t.Fatalf("writes through an open descriptor were heard as events before its close: %+v", c)
	}
	if h := f.writers.takeHeld(); len(h) != 1 || h["a/log"].name != "log" {
		t.Fatalf("held writes: %v, want a/log", h)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); f.pending.Peek().Empty() && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		f.drain()
	}
	c := f.pending.Take()
	if got := folders(c); !slices.Equal(got, []string{"a"}) || c.Named != nil || c.Lost {
		t.Fatalf("at its close: folders %v, named %v, lost %v; want [a], none, no", got, c.Named, c.Lost)
	}
}

// TestFSEventsModeFindsFilesKeptOpen: a file written through a descriptor
// kept open (never closed) is found at the next Take and Peek by the look
// at the files open for writing, and wakes the feed by itself within a
// few looks; a file only read is not.
func TestFSEventsModeFindsFilesKeptOpen(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"db", "ro"} {
		os.Mkdir(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "ro/read"), []byte("r"), 0o644)
	os.WriteFile(filepath.Join(root, "db/data"), []byte("v0"), 0o644)
	f := openMac(t, root, -1, "db", "ro")
	r, err := os.Open(filepath.Join(root, "ro/read"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := os.OpenFile(filepath.Join(root, "db/data"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	drainWake(f)
	if _, err := w.WriteAt([]byte("v1"), 0); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.Wake():
	case <-time.After(5 * writersEvery):
		t.Fatalf("a file written and kept open did not wake the feed in %s", 5*writersEvery)
	}
	if c := f.Peek(); !slices.Equal(folders(c), []string{"db"}) || c.Paths != 1 || c.Last.IsZero() {
		t.Fatalf("peek: %+v, want the folder db, one path", c)
	}
	for i := range 3 { // every take while it is open, written or not
		if _, err := w.WriteAt([]byte{'v', byte('2' + i)}, 0); err != nil {
			t.Fatal(err)
		}
		c := f.Take()
		if got := folders(c); !slices.Equal(got, []string{"db"}) || c.Lost || c.Named != nil {
			t.Fatalf("take %d: folders %v, named %v, lost %v (%s); want [db] only", i, got, c.Named, c.Lost, c.Why)
		}
	}
	// Held open and idle: it is marked at each take, by the look at the
	// open files alone (no write held since the last take), but wakes no
	// one (once a tick has seen its last write).
	time.Sleep(2 * writersEvery)
	if got := folders(f.Take()); !slices.Equal(got, []string{"db"}) {
		t.Fatalf("a take with the file held open, not written since the last take: folders %v, want [db]", got)
	}
	drainWake(f)
	select {
	case <-f.Wake():
		t.Fatal("a file held open and not written woke the feed")
	case <-time.After(3 * writersEvery):
	}
	// Closed (no writer left): heard once, at its close, then nothing.
	w.Close()
	settle(t, f, func(c Changes) bool { return len(c.Folders) > 0 })
	f.Take()
	if c := f.Take(); !c.Empty() {
		t.Fatalf("after the writer closed, a take still has %+v", c)
	}
}

// drainWake empties f's wake-up.
func drainWake(f *Feed) {
	select {
	case <-f.Wake():
	default:
	}
}

// TestFSEventsModeGivesFoldersNotNames: names made, renamed, linked and
// changed in their metadata are heard at once, a file truncated by path
// at the next look at the open files (it is open nowhere), one truncated
// through a descriptor at its close, as their folders only: no names, no
// linked inodes.
func TestFSEventsModeGivesFoldersNotNames(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b"} {
		os.Mkdir(filepath.Join(root, d), 0o755)
	}
	f := openMac(t, root, -1, "a", "b")
	tests := []struct {
		name string
		do   func() error
		want []string
	}{
		{"write", func() error { return os.WriteFile(filepath.Join(root, "a/x"), []byte("x"), 0o644) }, []string{"a"}},
		{"chmod", func() error { return os.Chmod(filepath.Join(root, "a/x"), 0o600) }, []string{"a"}},
		{"rename", func() error { return os.Rename(filepath.Join(root, "a/x"), filepath.Join(root, "b/x")) }, []string{"a", "b"}},
		{"hard link", func() error { return os.Link(filepath.Join(root, "b/x"), filepath.Join(root, "a/y")) }, []string{"a"}},
		{"truncate by path", func() error { return os.Truncate(filepath.Join(root, "a/y"), 1) }, []string{"a"}},
		{"truncate and close", func() error {
			w, err := os.OpenFile(filepath.Join(root, "a/y"), os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			return errors.Join(w.Truncate(0), w.Close())
		}, []string{"a"}},
		{"remove", func() error { return os.Remove(filepath.Join(root, "b/x")) }, []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(); err != nil {
				t.Fatal(err)
			}
			settle(t, f, func(c Changes) bool { return len(c.Folders) >= len(tt.want) })
			time.Sleep(20 * time.Millisecond)
			c := f.Take()
			if got := folders(c); !slices.Equal(got, tt.want) || c.Named != nil || c.Linked != nil || c.Lost {
				t.Fatalf("folders %v, named %v, linked %v, lost %v; want %v, no names, no links", got, c.Named, c.Linked, c.Lost, tt.want)
			}
		})
	}
}

// TestFSEventsModeDrops: one take in DropEvery is Lost, saying so, with
// nothing changed (as FSEvents' dropped events); Peek drops nothing.
func TestFSEventsModeDrops(t *testing.T) {
	root := t.TempDir()
	f := openMac(t, root, 3) // its first take was take 1
	var lost []int
	for take := 2; take <= 10; take++ {
		if c := f.Peek(); c.Lost {
			t.Fatalf("peek before take %d is lost: %s", take, c.Why)
		}
		if c := f.Take(); c.Lost {
			if !strings.Contains(c.Why, "dropped") {
				t.Errorf("take %d lost for %q", take, c.Why)
			}
			lost = append(lost, take)
		}
	}
	if !slices.Equal(lost, []int{3, 6, 9}) {
		t.Errorf("takes lost: %v, want [3 6 9]", lost)
	}
}

// TestFSEventsModeLostWhenOpenFilesUnknown: when the open files cannot be
// told, the take is Lost, saying why.
func TestFSEventsModeLostWhenOpenFilesUnknown(t *testing.T) {
	f := openMac(t, t.TempDir(), -1)
	findWith(f, func([]string) ([]string, error) { return nil, errors.New("no /proc") })
	if c := f.Take(); !c.Lost || !strings.Contains(c.Why, "open for writing") || !strings.Contains(c.Why, "no /proc") {
		t.Fatalf("take: lost %v, %q", c.Lost, c.Why)
	}
}

// TestOpenWriters: of the files open under a disk, the finder lists those
// open for writing (write-only, read-write, a name that ends in
// " (deleted)"); not one open only for reading, nor one removed while
// open, nor one elsewhere.
func TestOpenWriters(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	open := func(dir, name string, flag int) string {
		t.Helper()
		p := filepath.Join(dir, name)
		fh, err := os.OpenFile(p, flag|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fh.Close() })
		return p
	}
	want := []string{
		open(root, "wronly", os.O_WRONLY),
		open(root, "rdwr", os.O_RDWR),
		open(root, "odd (deleted)", os.O_WRONLY),
	}
	open(root, "rdonly", os.O_RDONLY)
	open(other, "elsewhere", os.O_WRONLY)
	if err := os.Remove(open(root, "removed", os.O_WRONLY)); err != nil {
		t.Fatal(err)
	}
	got, err := openWriters([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("open for writing: %q, want %q", got, want)
	}
}

// TestWritersWake: who looks at the open files wakes the saves as it
// should. A take wakes no one (its marks are in what it returns); a peek
// wakes for a held write of a file open nowhere (a truncate by path), not
// for a file open for writing, or the saves' wait, which peeks at each
// wake-up, would spin while a file is written without pause; a tick wakes
// when an open file is new or moved since the last tick, once.
func TestWritersWake(t *testing.T) {
	root := t.TempDir()
	p := newPending(nil, false)
	w := &writers{p: p, roots: []string{root}, find: openWriters, stop: make(chan struct{}), done: make(chan struct{})}
	fh, err := os.Create(filepath.Join(root, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	os.WriteFile(filepath.Join(root, "cut"), []byte("12345"), 0o644)
	woke := func() bool {
		select {
		case <-p.Wake():
			return true
		default:
			return false
		}
	}
	woke() // the pending's start
	tests := []struct {
		name  string
		do    func()
		by    looker
		wakes bool
	}{
		{"take", func() { fh.WriteString("a") }, byTake, false},
		{"peek, an open file written", func() { fh.WriteString("b") }, byPeek, false},
		{"tick, an open file new to ticks", func() {}, byTick, true},
		{"tick, nothing moved", func() {}, byTick, false},
		{"peek, a truncate by path", func() { os.Truncate(filepath.Join(root, "cut"), 1); w.modified(".", "cut", time.Now()) }, byPeek, true},
		{"peek, a held write of a file open for writing", func() { fh.WriteString("c"); w.modified(".", "log", time.Now()) }, byPeek, false},
		{"tick, the open file moved", func() { fh.WriteString("d") }, byTick, true},
		{"take, a truncate by path", func() { w.modified(".", "cut", time.Now()) }, byTake, false},
	}
	for _, tt := range tests {
		tt.do()
		w.look(tt.by)
		if got := woke(); got != tt.wakes {
			t.Errorf("%s: woke %v, want %v", tt.name, got, tt.wakes)
		}
	}
	c := p.Take()
	if got := folders(c); !slices.Equal(got, []string{"."}) || c.Paths != 2 {
		t.Errorf("marked: folders %v, %d paths; want [.], 2 (log and cut)", got, c.Paths)
	}
}
