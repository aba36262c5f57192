//go:build linux

package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"rambar/internal/testdigest"
	"rambar/snapstore"
	"rambar/tree"
)

// sameTmpfs mounts a tmpfs of 64 MiB on a fresh folder until the test ends.
func sameTmpfs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("rambar-test", dir, "tmpfs", 0, "size=64m,mode=0755"); err != nil {
		t.Fatalf("mount tmpfs (run as root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// pnpmLike is a small pnpm tree: files in a store folder (small ones,
// packed, and a few past packMax, each an object of its own; modes and
// times of their own), each with a name or two under node_modules.
type pnpmLike struct {
	root  string
	store []string // the store's files, relative to root
	links map[string][]string
	bytes int64
}

func newPnpmLike(t *testing.T, root string) *pnpmLike {
	t.Helper()
	p := &pnpmLike{root: root, links: map[string][]string{}}
	old := time.Date(2024, 3, 1, 12, 0, 0, 123456789, time.UTC)
	for i := range 300 {
		rel := fmt.Sprintf("store/%02x/f%03d", i%16, i)
		size := 100 + i*37
		if i%60 == 0 {
			size = 3*packMax + i
		}
		data := strings.Repeat(fmt.Sprintf("%03d-", i), size/4+1)[:size]
		mode := []os.FileMode{0o644, 0o755, 0o600}[i%3]
		p.write(t, rel, data, mode, old.Add(time.Duration(i)*time.Minute))
		p.store = append(p.store, rel)
		p.bytes += int64(size)
		p.links[rel] = []string{fmt.Sprintf("node_modules/.pnpm/pkg%d/index%d", i%40, i)}
		if i%7 == 0 {
			p.links[rel] = append(p.links[rel], fmt.Sprintf("node_modules/.pnpm/other%d/copy%d", i%5, i))
		}
	}
	p.link(t)
	return p
}

func (p *pnpmLike) write(t *testing.T, rel, data string, mode os.FileMode, mtime time.Time) {
	t.Helper()
	path := filepath.Join(p.root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	putTimes(t, path, mtime)
}

// putTimes sets path's access and modification times (utimensat, as
// touch -d does).
func putTimes(t *testing.T, path string, mtime time.Time) {
	t.Helper()
	ts := unix.NsecToTimespec(mtime.UnixNano())
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, path, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		t.Fatal(err)
	}
}

// link makes node_modules' names of the store's files.
func (p *pnpmLike) link(t *testing.T) {
	t.Helper()
	for _, rel := range p.store {
		for _, l := range p.links[rel] {
			path := filepath.Join(p.root, l)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Link(filepath.Join(p.root, rel), path); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func (p *pnpmLike) unlink(t *testing.T) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(p.root, "node_modules")); err != nil {
		t.Fatal(err)
	}
}

// settle waits past the coarse change clock's tick, as a save's copy
// would before taking the files just linked.
func settle() { time.Sleep(30 * time.Millisecond) }

// TestSameBytesAreNotStoredAgain: files whose links were removed and made
// again (their ctime and link count new, nothing else) are not copied by
// the next save, which names the objects saved before, and the snapshot
// restores the tree exactly (contents, links, modes, times); a file
// rewritten with the same size and its mtime put back is copied, with its
// new bytes. The compare's reads are counted in the save's progress.
func TestSameBytesAreNotStoredAgain(t *testing.T) {
	cases := []struct {
		name string
		// change changes the tree after its first save; each step is
		// followed by a save, the last one checked.
		change     []func(t *testing.T, p *pnpmLike)
		wantCopied int
		compared   bool // the last save compares the store's bytes
		// objects, when set, does this to the first save's objects.
		objects func(t *testing.T, dir string)
	}{
		{"links made again", []func(*testing.T, *pnpmLike){func(t *testing.T, p *pnpmLike) { p.unlink(t); p.link(t) }}, 0, true, nil},
		{"links removed, saved, made again", []func(*testing.T, *pnpmLike){
			func(t *testing.T, p *pnpmLike) { p.unlink(t) },
			func(t *testing.T, p *pnpmLike) { p.link(t) },
		}, 0, true, nil},
		{"links removed", []func(*testing.T, *pnpmLike){func(t *testing.T, p *pnpmLike) { p.unlink(t) }}, 0, true, nil},
		{"one file's links made again (a delta)", []func(*testing.T, *pnpmLike){func(t *testing.T, p *pnpmLike) {
			for _, l := range p.links[p.store[60]] {
				path := filepath.Join(p.root, l)
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				if err := os.Link(filepath.Join(p.root, p.store[60]), path); err != nil {
					t.Fatal(err)
				}
			}
		}}, 0, false, nil},
		{"links made again, objects damaged", []func(*testing.T, *pnpmLike){func(t *testing.T, p *pnpmLike) { p.unlink(t); p.link(t) }}, 300, true,
			func(t *testing.T, dir string) {
				ents, err := os.ReadDir(dir)
				if err != nil || len(ents) == 0 {
					t.Fatalf("objects %s: %d, %v", dir, len(ents), err)
				}
				for _, e := range ents {
					path := filepath.Join(dir, e.Name())
					b, err := os.ReadFile(path)
					if err == nil {
						err = os.WriteFile(path, []byte(strings.Repeat("x", len(b))), 0o600)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
			}},
		{"links made again, objects gone", []func(*testing.T, *pnpmLike){func(t *testing.T, p *pnpmLike) { p.unlink(t); p.link(t) }}, 300, false,
			func(t *testing.T, dir string) {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
			}},
		{"rewritten, same size, mtime put back", []func(*testing.T, *pnpmLike){func(t *testing.T, p *pnpmLike) {
			for _, rel := range []string{p.store[1], p.store[60]} { // packed, and an object of its own
				path := filepath.Join(p.root, rel)
				var st unix.Stat_t
				if err := unix.Stat(path, &st); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				b[len(b)/2] ^= 0x55
				if err := os.WriteFile(path, b, 0); err != nil {
					t.Fatal(err)
				}
				putTimes(t, path, time.Unix(st.Mtim.Unix()))
			}
		}}, 2, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			root := sameTmpfs(t)
			s := &Store{Store: &snapstore.Store{Dir: t.TempDir()}}
			p := newPnpmLike(t, root)
			first, err := s.SaveLocked(ctx, root, "disk", 5, nil, nil)
			if err != nil || first.CopiedFiles != len(p.store) {
				t.Fatalf("first save = %+v, %v; want %d files copied", first, err, len(p.store))
			}
			if c.objects != nil {
				c.objects(t, s.Path("objects", first.Snapshot))
			}
			var res Result
			var mu sync.Mutex
			var done tree.Progress
			for k, ch := range c.change {
				ch(t, p)
				settle()
				progress := func(pr tree.Progress) {
					mu.Lock()
					if pr.BytesDone > done.BytesDone {
						done = pr
					}
					mu.Unlock()
				}
				if res, err = s.SaveLocked(ctx, root, "disk", 5, progress, nil); err != nil || res.Unchanged || res.InUse != nil {
					t.Fatalf("save %d = %+v, %v; want a snapshot", k+2, res, err)
				}
			}
			if res.CopiedFiles != c.wantCopied {
				t.Errorf("the last save copied %d files (%d bytes); want %d", res.CopiedFiles, res.CopiedBytes, c.wantCopied)
			}
			if h, err := s.ReadManifest(res.Snapshot, false); strings.Contains(c.name, "delta") && (err != nil || h.Base == "") {
				t.Errorf("the last snapshot is not a delta (%v)", err)
			}
			if c.compared && done.BytesDone < p.bytes {
				t.Errorf("progress counted %d bytes (%+v); want the %d compared", done.BytesDone, done, p.bytes)
			}
			out := sameTmpfs(t)
			if _, err := s.Restore(ctx, res.Snapshot, out, "", nil); err != nil {
				t.Fatal(err)
			}
			testdigest.Same(t, testdigest.Of(t, root), testdigest.Of(t, out))
			for _, rel := range p.store {
				var a, b unix.Stat_t
				if err := unix.Stat(filepath.Join(root, rel), &a); err != nil {
					t.Fatal(err)
				}
				if err := unix.Stat(filepath.Join(out, rel), &b); err != nil {
					t.Fatal(err)
				}
				if a.Nlink != b.Nlink || a.Mode != b.Mode || a.Mtim != b.Mtim {
					t.Errorf("%s restored with links %d, mode %o, mtime %v; want %d, %o, %v", rel, b.Nlink, b.Mode, b.Mtim, a.Nlink, a.Mode, a.Mtim)
				}
			}
		})
	}
}

// TestSameBytesWrittenDuringTheCompare: a file changed while its bytes
// are compared (its identity differs after the read) is not taken as
// holding the saved bytes, even when they are the same and its mtime is
// put back; left alone, it is.
func TestSameBytesWrittenDuringTheCompare(t *testing.T) {
	cases := []struct {
		name  string
		write bool
	}{
		{"left alone", false},
		{"written during the compare", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := sameTmpfs(t)
			s := &Store{Store: &snapstore.Store{Dir: t.TempDir()}}
			p := newPnpmLike(t, root)
			if _, err := s.SaveLocked(context.Background(), root, "disk", 5, nil, nil); err != nil {
				t.Fatal(err)
			}
			p.unlink(t)
			p.link(t)
			settle()
			target := p.links[p.store[3]][0] // the first name of a store file
			var wrote bool
			if c.write {
				sameRead = func(rel string) {
					if rel != target {
						return
					}
					path := filepath.Join(root, rel)
					var st unix.Stat_t
					b, err := os.ReadFile(path)
					if err == nil {
						err = unix.Stat(path, &st)
					}
					if err == nil {
						err = os.WriteFile(path, b, 0) // the same bytes
					}
					if err != nil {
						t.Error(err)
						return
					}
					putTimes(t, path, time.Unix(st.Mtim.Unix()))
					wrote = true
				}
				t.Cleanup(func() { sameRead = nil })
			}
			items, err := tree.Scan(root)
			if err != nil {
				t.Fatal(err)
			}
			idx := s.LoadIndex()
			d, ok := snapstore.DiffIndex(idx, items, nil)
			if idx == nil || !ok {
				t.Fatalf("index %v, diff ok %v", idx != nil, ok)
			}
			same, _ := s.sameBytes(root, idx, items, &d, nil, nil, nil)
			at := -1
			for i := range items {
				if items[i].Rel == target {
					at = i
				}
			}
			_, taken := same[int32(at)]
			if c.write && (!wrote || taken) {
				t.Errorf("written during the compare (%v): taken as the saved bytes %v", wrote, taken)
			}
			if !c.write && (!taken || len(same) != len(p.store)) {
				t.Errorf("left alone: taken %v, %d of %d files taken", taken, len(same), len(p.store))
			}
		})
	}
}
