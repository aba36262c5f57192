//go:build linux

package keeper

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/foldersync"
	"rambar/snapshot"
	"rambar/snapstore"
	"rambar/tree"

	"rambar/ramdisk"
)

// The crash test re-runs this test binary as a child that does one save;
// these variables tell the child what to save.
const (
	envChild  = "RAMBAR_MIRROR_CRASH_CHILD"
	envData   = "RAMBAR_MIRROR_CRASH_DATA"
	envVolume = "RAMBAR_MIRROR_CRASH_VOLUME"
	envMirror = "RAMBAR_MIRROR_CRASH_MIRROR"
	// envCompact makes the child's save a compaction (a full manifest
	// where it would write a delta).
	envCompact = "RAMBAR_MIRROR_CRASH_COMPACT"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		os.Exit(crashChild())
	}
	if os.Getenv(envSteadyChild) == "1" {
		os.Exit(steadyChild())
	}
	if os.Getenv(envFollowChild) == "1" {
		os.Exit(followChild())
	}
	if h := os.Getenv(envLiveHelper); h != "" {
		os.Exit(liveHelper(h, os.Getenv(envLiveArg)))
	}
	os.Exit(m.Run())
}

// crashChild saves the volume and exits 0; the parent kills it somewhere.
func crashChild() int {
	k := NewKeeper(os.Getenv(envData))
	k.IsMounted = func(string) bool { return true }
	v := ramdisk.Volume{Name: "Crash", MountPoint: os.Getenv(envVolume)}
	if os.Getenv(envCompact) == "1" {
		k.deltaLimit = func(int) int { return 0 }
	}
	if _, err := k.Save(context.Background(), v, SaveOptions{}); err != nil {
		fmt.Fprintln(os.Stderr, "child save:", err)
		return 1
	}
	return 0
}

// linkCopy copies a store with hard links: a save never changes a file in
// place (it writes new objects and renames new manifests over old ones),
// so the copies cannot be disturbed.
func linkCopy(t *testing.T, src, dst string) {
	t.Helper()
	var dirs [][2]string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			dirs = append(dirs, [2]string{p, to})
			return os.MkdirAll(to, 0o700)
		}
		return os.Link(p, to)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		fi, err := os.Stat(dirs[i][0])
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(dirs[i][1], fi.Mode().Perm()|fi.Mode()&os.ModeSticky)
		os.Chtimes(dirs[i][1], fi.ModTime(), fi.ModTime())
	}
}

// crashTree writes n files of mixed sizes, seeded.
func crashTree(t *testing.T, root string, seed int64, n int) {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < n; i++ {
		size := r.Intn(4096)
		if i%10 == 0 {
			size = r.Intn(100 << 10)
		}
		write(t, root, fmt.Sprintf("dir%d/sub%d/file%d", i%7, i%13, i), strings.Repeat(string(rune('a'+r.Intn(26))), size))
	}
}

func runChild(t *testing.T, data, vol, mirror string, compact bool) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// GORACE: under -race a process sleeps a second at exit by default,
	// which would put most random kills after the save is done.
	cmd.Env = append(os.Environ(), envChild+"=1", envData+"="+data, envVolume+"="+vol, envMirror+"="+mirror,
		"GORACE=atexit_sleep_ms=0")
	if compact {
		cmd.Env = append(cmd.Env, envCompact+"=1")
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestSaveSurvivesKill9 kills a saving child process with SIGKILL at random
// moments, 32 times for Keep and 10 for Mirror. After each kill the store's
// current state must be the old tree or the new tree, exactly (and each
// path of a Mirror folder its old or new version), and the next save must
// finish the job and clean up what the killed one left.
func TestSaveSurvivesKill9(t *testing.T) {
	for _, mode := range []ramdisk.ContentMode{ramdisk.Keep, ramdisk.Mirror} {
		t.Run(string(mode), func(t *testing.T) {
			crashTest(t, mode, map[ramdisk.ContentMode]int{ramdisk.Keep: 32, ramdisk.Mirror: 10}[mode], false)
		})
	}
}

// TestCompactionSurvivesKill9 is TestSaveSurvivesKill9 for a save that
// replaces a delta with a full manifest: the store's current snapshot is a
// delta, and the killed save writes the whole tree again.
func TestCompactionSurvivesKill9(t *testing.T) {
	crashTest(t, ramdisk.Keep, 16, true)
}

// crashTest runs the kills. The child's save writes a delta (on the full
// first save), or with compact a full manifest over a store whose current
// snapshot is a delta; a completed child save is checked to have done so.
func crashTest(t *testing.T, mode ramdisk.ContentMode, kills int, compact bool) {
	// A tmpfs keeps syncfs cheap on this shared machine; what is tested is
	// the process dying at any instruction, which is the same on any file
	// system (durability across power loss comes from syncfs before the
	// manifest and atomicfile's fsyncs).
	base := mountTmpfs(t, "1g")
	vol := filepath.Join(base, "vol")
	pristine := filepath.Join(base, "pristine")
	mirrorDir := filepath.Join(base, "mirror", "Folder")
	k := NewKeeper(pristine)
	k.IsMounted = func(string) bool { return true }
	if _, err := k.Setup("Crash", Options{Mode: mode, MirrorPath: mirrorDir, Snapshots: 3, CreateFolder: true}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(vol, 0o700)
	v := ramdisk.Volume{Name: "Crash", MountPoint: vol}
	if _, err := k.Load(context.Background(), v, nil); err != nil {
		t.Fatal(err)
	}
	crashTree(t, vol, 1, 3000)
	if _, err := k.Save(context.Background(), v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if compact {
		write(t, vol, "dir0/sub0/file0", "a delta")
		if res, err := k.Save(context.Background(), v, SaveOptions{}); err != nil || res.CopiedFiles != 1 {
			t.Fatal(res, err)
		}
	}
	oldTree := digest(t, vol)
	// The new tree: a third of the files rewritten, some deleted, some added.
	crashTree(t, vol, 2, 1000)
	for i := 2000; i < 2300; i++ {
		os.Remove(filepath.Join(vol, fmt.Sprintf("dir%d/sub%d/file%d", i%7, i%13, i)))
	}
	write(t, vol, "added/new/file", "new")
	// Large files, copied with direct I/O (direct_linux.go): kills land
	// in the middle of them too.
	write(t, vol, "added/large/one", strings.Repeat("L", tree.DirectMin+5))
	write(t, vol, "added/large/two", strings.Repeat("M", 2*tree.DirectMin+777))
	newTree := digest(t, vol)
	mirrorSnapshot := func(data string) {
		// Each path of the mirror folder is its old or its new version.
		if mode != ramdisk.Mirror {
			return
		}
		if bad := oldOrNew(oldTree, newTree, digest(t, mirrorDir)); len(bad) > 0 {
			t.Fatalf("mirror folder paths neither old nor new: %v", bad)
		}
	}
	pristineMirror := filepath.Join(base, "pristine-mirror")
	if mode == ramdisk.Mirror {
		linkCopy(t, mirrorDir, pristineMirror)
	}

	// How long an uninterrupted child save takes, start to exit.
	timeOne := func() time.Duration {
		data := filepath.Join(base, "timing")
		os.RemoveAll(data)
		linkCopy(t, pristine, data)
		start := time.Now()
		if err := runChild(t, data, vol, mirrorDir, compact).Wait(); err != nil {
			t.Fatal(err)
		}
		d := time.Since(start)
		s := &snapshot.Store{Store: &snapstore.Store{Dir: filepath.Join(data, "disks", "Crash")}}
		cur, _ := s.Current()
		if h, err := s.ReadManifest(cur, false); err != nil || (h.Base == "") != compact {
			t.Fatalf("the save killed below wrote %+v (%v); want a delta: %v", h, err, !compact)
		}
		os.RemoveAll(data)
		return d
	}
	// The median of three runs: the first exec of a binary is slow.
	runs := []time.Duration{timeOne(), timeOne(), timeOne()}
	sort.Slice(runs, func(i, j int) bool { return runs[i] < runs[j] })
	full := runs[1]
	if mode == ramdisk.Mirror {
		// The timing run wrote the mirror folder: put the old one back.
		os.RemoveAll(mirrorDir)
		linkCopy(t, pristineMirror, mirrorDir)
	}
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	var sawOld, sawNew int
	// Kills are spread over the measured save time. On a loaded machine the
	// save can run much slower (or faster) than the timing runs said; if
	// one side of the commit has not been seen after the planned kills, go
	// on, stretching or shrinking the spread, up to four times as many.
	spread := full * 11 / 10
	for i := 0; i < kills || ((sawOld == 0 || sawNew == 0) && i < 4*kills); i++ {
		if i >= kills {
			if sawNew == 0 {
				spread = spread * 3 / 2
			} else {
				spread = spread * 2 / 3
			}
		}
		data := filepath.Join(base, fmt.Sprintf("run%d", i))
		linkCopy(t, pristine, data)
		cmd := runChild(t, data, vol, mirrorDir, compact)
		delay := time.Duration(r.Int63n(int64(spread)))
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		werr := cmd.Wait()
		if testing.Verbose() {
			t.Logf("kill %d after %v: %v", i, delay, werr)
		}

		kk := NewKeeper(data)
		kk.IsMounted = func(string) bool { return true }
		st, err := kk.State("Crash")
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(base, fmt.Sprintf("out%d", i))
		os.MkdirAll(out, 0o700)
		if _, err := kk.store(st).Restore(context.Background(), "", out, "", nil); err != nil {
			t.Fatalf("kill %d: the store does not restore: %v", i, err)
		}
		got := digest(t, out)
		switch {
		case len(oldTree.Diff(got, 1)) == 0:
			sawOld++
		case len(newTree.Diff(got, 1)) == 0:
			sawNew++
		default:
			t.Fatalf("kill %d: current state is neither old nor new: differs from old at %v, from new at %v",
				i, oldTree.Diff(got, 3), newTree.Diff(got, 3))
		}
		mirrorSnapshot(data)
		// The next save completes the job and removes the leftovers.
		if _, err := kk.Save(context.Background(), v, SaveOptions{}); err != nil {
			t.Fatalf("kill %d: save after the kill: %v", i, err)
		}
		os.RemoveAll(out)
		os.MkdirAll(out, 0o700)
		if _, err := kk.store(st).Restore(context.Background(), "", out, "", nil); err != nil {
			t.Fatal(err)
		}
		sameTree(t, newTree, digest(t, out))
		if mode == ramdisk.Mirror {
			sameTree(t, newTree, digest(t, mirrorDir))
			noTemps(t, mirrorDir)
			os.RemoveAll(mirrorDir)
			linkCopy(t, pristineMirror, mirrorDir)
		}
		cur, _ := kk.store(st).Current()
		objs, _ := os.ReadDir(filepath.Join(data, "disks", "Crash", "objects"))
		for _, o := range objs {
			if o.Name() > cur {
				t.Errorf("kill %d: objects of an unfinished save remain: %s", i, o.Name())
			}
		}
		os.RemoveAll(data)
		os.RemoveAll(out)
	}
	t.Logf("%d kills (a full save takes %v): %d left the old state, %d the new", sawOld+sawNew, full, sawOld, sawNew)
	if sawOld == 0 || sawNew == 0 {
		t.Errorf("kills landed only on one side of the commit (old %d, new %d): the test proved nothing about the other", sawOld, sawNew)
	}
}

// oldOrNew lists the paths of got that hold neither their version in old
// nor the one in new (absent counts as a version; a folder's time is left
// out: it changes as its contents do; temporary names are skipped).
func oldOrNew(old, new, got tree.Digest) []string {
	var bad []string
	seen := map[string]bool{}
	for _, d := range []tree.Digest{old, new, got} {
		for p := range d {
			if seen[p] || isTempPath(p) {
				continue
			}
			seen[p] = true
			if g := timeless(got[p]); g != timeless(old[p]) && g != timeless(new[p]) {
				bad = append(bad, p)
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// timeless is a digest line without a folder's time.
func timeless(line string) string {
	if f := strings.SplitN(line, " ", 4); len(f) == 4 && f[0] == "d" {
		return f[0] + " " + f[1] + " " + f[3]
	}
	return line
}

// isTempPath: p is, or is inside, a write-back's temporary name.
func isTempPath(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if strings.HasPrefix(c, foldersync.TempPrefix) {
			return true
		}
	}
	return false
}
