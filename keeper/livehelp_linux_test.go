package keeper

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/changefeed"
	"rambar/snapstore"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// The tests of saves of a disk in use (live_linux_test.go) run programs
// that use the disk meanwhile: this test binary again, as a helper, told
// what to do by these variables.
const (
	envLiveHelper = "RAMBAR_MIRROR_LIVE_HELPER" // rewrite, mover or mapper
	envLiveArg    = "RAMBAR_MIRROR_LIVE_ARG"    // the file or folder it works on
)

// liveHelper runs helper h on arg until it is killed (rewrite, mover) or
// told to quit (mapper).
func liveHelper(h, arg string) int {
	var err error
	switch h {
	case "rewrite":
		err = rewriteForever(arg)
	case "mover":
		err = moveForever(arg)
	case "mapper":
		err = mapFromStdin(arg)
	default:
		err = fmt.Errorf("no helper %q", h)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, h+":", err)
		return 1
	}
	return 0
}

// startHelper starts helper h on arg; it is killed at the test's end.
func startHelper(t *testing.T, h, arg string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envLiveHelper+"="+h, envLiveArg+"="+arg, "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopHelper(cmd) })
	return cmd
}

// stopHelper kills a helper and waits for it.
func stopHelper(cmd *exec.Cmd) {
	if cmd.ProcessState == nil {
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
}

// A rewritten file is versionChunks chunks of 1 MiB, each starting with
// its version and its number, the rest bytes made from both: a copy that
// is not one version (torn) is told by any chunk.
const (
	versionChunks = 24
	chunkSize     = 1 << 20
)

// versionChunk fills buf with chunk i of version v: its version and
// number, then 16 bytes made from both, repeated (filled by doubling, so
// the race detector's per-byte cost stays out of it).
func versionChunk(buf []byte, v, i uint64) {
	binary.LittleEndian.PutUint64(buf, v)
	binary.LittleEndian.PutUint64(buf[8:], i)
	binary.LittleEndian.PutUint64(buf[16:], v*0x9e3779b97f4a7c15+i)
	binary.LittleEndian.PutUint64(buf[24:], i*0xbf58476d1ce4e5b9^v)
	for n := 16; 16+n < len(buf); n *= 2 {
		copy(buf[16+n:], buf[16:16+n])
	}
}

// writeVersion writes version v of the file f in place, in one write(2)
// (buf holds a whole version): a save copies a file between two writes,
// never during one, so each snapshot holds one version whole. (A program
// that rewrites a file in parts leaves it a mix of two versions between
// its writes: that mix exists on the disk, and only the program can tell
// it from a version; see the README's "Not promised".)
func writeVersion(f *os.File, v uint64, buf []byte) error {
	buf = buf[:versionChunks*chunkSize]
	for i := uint64(0); i < versionChunks; i++ {
		versionChunk(buf[i*chunkSize:(i+1)*chunkSize], v, i)
	}
	_, err := f.WriteAt(buf, 0)
	return err
}

// versionBuf is room for one version of a rewritten file.
func versionBuf() []byte { return make([]byte, versionChunks*chunkSize) }

// rewriteForever writes versions 1, 2, ... of path in place, without end,
// a millisecond apart (so as not to take a core of a shared machine).
func rewriteForever(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	buf := versionBuf()
	for v := uint64(1); ; v++ {
		if err := writeVersion(f, v, buf); err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

// versionOf returns the version the file at path holds whole, or an error
// naming how it is torn.
func versionOf(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	if len(b) != versionChunks*chunkSize {
		return 0, fmt.Errorf("%d bytes", len(b))
	}
	v := binary.LittleEndian.Uint64(b)
	want := make([]byte, chunkSize)
	for i := uint64(0); i < versionChunks; i++ {
		versionChunk(want, v, i)
		if got := b[i*chunkSize : (i+1)*chunkSize]; !bytes.Equal(got, want) {
			return 0, fmt.Errorf("chunk %d is of version %d, not %d", i, binary.LittleEndian.Uint64(got), v)
		}
	}
	return v, nil
}

// maildirMessages is how many messages the mover moves.
const maildirMessages = 200

// makeMaildir makes dir/tmp, new and cur with the messages, half in each.
func makeMaildir(t *testing.T, dir string) {
	t.Helper()
	for _, sub := range []string{"tmp", "new", "cur"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < maildirMessages; i++ {
		sub := []string{"new", "cur"}[i%2]
		write(t, dir, fmt.Sprintf("%s/msg%03d", sub, i), fmt.Sprintf("Subject: %d\n\nbody %d\n", i, i))
	}
}

// moveForever moves random messages of the maildir dir between new/ and
// cur/ (renames, as a mail client files them), without end, thousands a
// second.
func moveForever(dir string) error {
	r := rand.New(rand.NewSource(int64(os.Getpid())))
	for {
		name := fmt.Sprintf("msg%03d", r.Intn(maildirMessages))
		from, to := filepath.Join(dir, "new", name), filepath.Join(dir, "cur", name)
		if _, err := os.Lstat(from); err != nil {
			from, to = to, from
		}
		if err := os.Rename(from, to); err != nil {
			return err
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// maildirHolds checks that the maildir dir of a restored snapshot holds
// every message, whole, in new/ or cur/ (in both when it moved during a
// save that never held still), and returns how many are in both.
func maildirHolds(dir string) (int, error) {
	seen := map[string]int{}
	for _, sub := range []string{"new", "cur"} {
		ents, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			return 0, err
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, sub, e.Name()))
			if err != nil {
				return 0, err
			}
			n, _ := strconv.Atoi(strings.TrimPrefix(e.Name(), "msg"))
			if string(b) != fmt.Sprintf("Subject: %d\n\nbody %d\n", n, n) {
				return 0, fmt.Errorf("%s/%s holds %q", sub, e.Name(), b)
			}
			seen[e.Name()]++
		}
	}
	twice := 0
	for i := 0; i < maildirMessages; i++ {
		switch name := fmt.Sprintf("msg%03d", i); seen[name] {
		case 0:
			return 0, fmt.Errorf("%s is missing", name)
		case 2:
			twice++
		}
	}
	return twice, nil
}

// mapFromStdin maps path shared and writable and, for each line "OFF
// BYTE" on stdin, writes BYTE at OFF through the mapping and answers "ok";
// "q" unmaps and ends.
func mapFromStdin(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return err
	}
	f.Close() // the mapping keeps the file, as LMDB's and SQLite's do
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() == "q" {
			return unix.Munmap(m)
		}
		var off, b int
		if _, err := fmt.Sscanf(in.Text(), "%d %d", &off, &b); err != nil {
			return err
		}
		m[off] = byte(b)
		fmt.Println("ok")
	}
	return in.Err()
}

// liveWays are the ways the tests of a disk in use save it, each test run
// every way: walking the whole disk; by its change feed (as the menu-bar
// app saves a disk it follows), followed from the first save; and by a
// feed with the Mac's semantics (changefeed.ModeFSEvents: writes heard at
// close, folders without names, the files open for writing looked at,
// takes dropped now and then).
var liveWays = []string{"walk", "feed", "feed-mac"}

// liveSaver saves one disk the way its test runs, counting the saves that
// went by the feed.
type liveSaver struct {
	k   *Keeper
	v   ramdisk.Volume
	o   SaveOptions
	fed int
}

// saverOf saves disk v of k the way way says.
func saverOf(t *testing.T, k *Keeper, v ramdisk.Volume, way string) *liveSaver {
	t.Helper()
	s := &liveSaver{k: k, v: v}
	if way == "feed-mac" {
		k.FeedMode = changefeed.ModeFSEvents
	}
	if way == "feed" || way == "feed-mac" {
		f, err := k.Follow(v)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		s.o.Follow = f
	}
	return s
}

// save saves the disk.
func (s *liveSaver) save(ctx context.Context) (Result, error) {
	r, err := s.k.Save(ctx, s.v, s.o)
	if r.ByFeed {
		s.fed++
	}
	return r, err
}

// liveDisk is a kept disk on its own tmpfs of size, keeping n snapshots,
// loaded; its Keeper saves and restores it.
func liveDisk(t *testing.T, name, size string, n int) (*Keeper, ramdisk.Volume) {
	t.Helper()
	k := NewKeeper(t.TempDir())
	k.IsMounted = func(string) bool { return true }
	if _, err := k.Setup(name, Options{Mode: ramdisk.Keep, Snapshots: n}); err != nil {
		t.Fatal(err)
	}
	v := ramdisk.Volume{Name: name, MountPoint: mountTmpfs(t, size)}
	if _, err := k.Load(context.Background(), v, nil); err != nil {
		t.Fatal(err)
	}
	return k, v
}

// restoreEach restores every listed snapshot of v's disk into a fresh
// tmpfs of size (not recording it as the disk's state: the disk's index
// stays v's) and hands it to check with the snapshot; a snapshot labelled
// taken while in use restores saying so.
func restoreEach(t *testing.T, k *Keeper, v ramdisk.Volume, size string, check func(s snapstore.Snapshot, root string)) []snapstore.Snapshot {
	t.Helper()
	snaps, err := k.Snapshots(v.Name)
	if err != nil {
		t.Fatal(err)
	}
	st, err := k.State(v.Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		root := mountTmpfs(t, size)
		res, err := k.store(st).Restore(context.Background(), s.ID, root, "", nil)
		if err != nil {
			t.Fatalf("restore %s: %v", s.ID, err)
		}
		if (res.InUse != nil) != (s.InUse != nil) {
			t.Errorf("snapshot %s listed in use %v, restored saying %v", s.ID, s.InUse, res.InUse)
		}
		check(s, root)
	}
	return snaps
}

// linkGroups lists the paths under root that share an inode with another,
// one sorted line per inode, sorted: a tree's hard links as a digest does
// not show them.
func hardLinkGroups(t *testing.T, root string) []string {
	t.Helper()
	by := map[uint64][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		if st.Nlink > 1 {
			rel, _ := filepath.Rel(root, p)
			by[st.Ino] = append(by[st.Ino], rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, g := range by {
		sort.Strings(g)
		out = append(out, strings.Join(g, " = "))
	}
	sort.Strings(out)
	return out
}

// bigVersioned writes data/big.bin under root, version 0 of the file the
// rewrite helper rewrites, and returns its path.
func bigVersioned(t *testing.T, root string) string {
	t.Helper()
	big := filepath.Join(root, "data/big.bin")
	os.MkdirAll(filepath.Dir(big), 0o755)
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	err = writeVersion(f, 0, versionBuf())
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	return big
}
