//go:build linux

package keeper

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/changefeed"
	"rambar/ramdisk"
	"rambar/snapstore"
)

// TestSteadyWritersEverySnapshotWhole: a log appended every 10 ms, a
// database in each journal mode committing every 10 ms through a process
// that holds it open, and git committing every 300 ms, through 14 saves,
// both ways of saving (liveWays). Every snapshot restores every log line
// whole and in order, each database whole with its count matching its
// rows, the repository whole; and none is older than the save before it
// began: a file never still is saved all the same, between its writes.
func TestSteadyWritersEverySnapshotWhole(t *testing.T) {
	for _, way := range liveWays {
		t.Run(way, func(t *testing.T) {
			ctx := context.Background()
			k, v := liveDisk(t, "Steady", "256m", 40)
			sv := saverOf(t, k, v, way)
			w := startSteadyWriters(t, v.MountPoint)
			time.Sleep(300 * time.Millisecond)
			// began: when each snapshot's save began, and the one before it.
			began, before := map[string][2]time.Time{}, time.Now()
			inUse := 0
			var took time.Duration
			for i := range 14 {
				time.Sleep(150 * time.Millisecond)
				start := time.Now()
				res, err := sv.save(ctx)
				if err != nil {
					t.Fatalf("save %d while the programs write: %v", i, err)
				}
				took = max(took, time.Since(start))
				if res.InUse != nil {
					inUse++
				}
				if !res.Unchanged {
					began[res.Snapshot] = [2]time.Time{before, start}
				}
				before = start
			}
			w.halt()
			w.failed(t)
			fresh := 0
			var stale time.Duration // the most any snapshot's log is older than its save
			restoreEach(t, k, v, "256m", func(s snapstore.Snapshot, root string) {
				st := checkSteady(t, root, "snapshot "+s.ID)
				b, ok := began[s.ID]
				if !ok {
					return
				}
				fresh++
				prev, start := b[0], b[1]
				stale = max(stale, start.Sub(st.logAt))
				if st.logAt.Before(prev) {
					t.Errorf("snapshot %s (in use %v) holds the log up to %s, before the save before it began (%s)", s.ID, s.InUse != nil, st.logAt.Format(time.StampMicro), prev.Format(time.StampMicro))
				}
				for mode, at := range st.rowAt {
					if at < prev.UnixNano() {
						t.Errorf("snapshot %s (in use %v) holds the %s database up to %s, before the save before it began", s.ID, s.InUse != nil, mode, time.Unix(0, at).Format(time.StampMicro))
					}
				}
				if len(st.rows) != len(steadyDBs) {
					t.Errorf("snapshot %s holds %d databases of %d", s.ID, len(st.rows), len(steadyDBs))
				}
			})
			if fresh < 10 {
				t.Errorf("%d snapshots of 14 saves", fresh)
			}
			t.Logf("%s: %d snapshots checked whole and fresh (the log at most %v older than its save's start), %d labelled taken while in use, %d by the feed; slowest save %v; the writers made %d log lines, %v rows, %d commits",
				way, fresh, stale.Round(time.Millisecond), inUse, sv.fed, took, w.lines, w.rows, w.commits)
		})
	}
}

// envSteadyChild runs the test binary as the menu-bar app keeping one disk
// continuously (--save-every auto), until killed.
const envSteadyChild = "RAMBAR_STEADY_CHILD"

// steadyChild follows the disk (data and volume as the crash child's) and
// saves it as the app does: at once, then each time Following.Next says
// it is due. A failed save ends it (the test then fails). Each save is
// told on stdout.
func steadyChild() int {
	k := NewKeeper(os.Getenv(envData))
	k.IsMounted = func(string) bool { return true }
	v := ramdisk.Volume{Name: "Steady", MountPoint: os.Getenv(envVolume)}
	f, err := k.Follow(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, "follow:", err)
		return 1
	}
	ctx := context.Background()
	for first := true; first || f.Next(ctx); first = false {
		res, err := k.Save(ctx, v, SaveOptions{Follow: f})
		if err != nil {
			fmt.Fprintln(os.Stderr, "save:", err)
			return 1
		}
		fmt.Printf("saved %s in-use=%v by-feed=%v took=%v\n", res.Snapshot, res.InUse != nil, res.ByFeed, res.Took.Round(time.Millisecond))
	}
	return 0
}

// steadyCrashFor is how long the programs write before the app is killed.
const steadyCrashFor = 45 * time.Second

// TestSteadyWritersSurviveACrash: the log, a database (in each journal
// mode in turn) and git (startSteadyWriters) write a kept disk for 45 s
// while the app (this
// package built without the race detector, as RAMBar ships) keeps it
// continuously (--save-every auto); then the app is killed with SIGKILL.
// The current snapshot restores the log, every line whole, ending at most
// 10 s before the kill; the database whole (integrity_check, its count
// matching its rows) with every row committed up to 10 s before the kill;
// the repository whole, with its commits up to then. With the change feed
// of this system and with one that behaves as macOS's FSEvents does
// (events only when a written file is closed, no names, drops).
func TestSteadyWritersSurviveACrash(t *testing.T) {
	app := plainTestBinary(t)
	for _, c := range [][2]string{{"native", "delete"}, {"native", "wal"}, {"fsevents", "delete"}, {"fsevents", "wal"}} {
		mode, journal := c[0], c[1]
		t.Run(mode+"-"+journal, func(t *testing.T) {
			ctx := context.Background()
			base := mountTmpfs(t, "1g")
			vol, data := filepath.Join(base, "vol"), filepath.Join(base, "data")
			k := NewKeeper(data)
			k.IsMounted = func(string) bool { return true }
			if _, err := k.Setup("Steady", Options{Mode: ramdisk.Keep, Snapshots: 6, SaveEvery: AutosaveAuto}); err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(vol, 0o700)
			v := ramdisk.Volume{Name: "Steady", MountPoint: vol}
			if _, err := k.Load(ctx, v, nil); err != nil {
				t.Fatal(err)
			}
			w := startSteadyWriters(t, vol, journal)
			cmd := exec.Command(app, "-test.run=^$")
			cmd.Env = append(os.Environ(), envSteadyChild+"=1", envData+"="+data, envVolume+"="+vol, "GORACE=atexit_sleep_ms=0")
			if mode == "fsevents" {
				cmd.Env = append(cmd.Env, changefeed.EnvMode+"=fsevents")
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			saves := make(chan []string, 1)
			go func() { saves <- readLines(out) }()
			time.Sleep(steadyCrashFor)
			cmd.Process.Signal(syscall.SIGKILL)
			crash := time.Now()
			if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("the app ended by itself: %v", err)
			}
			w.halt()
			w.failed(t)
			told := <-saves
			root := mountTmpfs(t, "512m")
			if _, err := k.store(mustState(t, k, "Steady")).Restore(ctx, "", root, "", nil); err != nil {
				t.Fatalf("the current snapshot does not restore: %v", err)
			}
			st := checkSteady(t, root, "the snapshot after the crash")
			limit := crash.Add(-10 * time.Second)
			if st.lines == 0 || st.logAt.Before(limit) {
				t.Errorf("the log ends at line %d, written %v before the crash (at most 10 s)", st.lines, crash.Sub(st.logAt))
			}
			for _, m := range []string{journal} {
				if at := time.Unix(0, st.rowAt[m]); st.rows[m] == 0 || at.Before(limit) {
					t.Errorf("the %s database holds %d rows, the last written %v before the crash (at most 10 s)", m, st.rows[m], crash.Sub(at))
				}
			}
			if st.commits == 0 || st.gitAt.Before(limit.Add(-time.Second)) { // commit times are whole seconds
				t.Errorf("the repository holds %d commits, the last made %v before the crash", st.commits, crash.Sub(st.gitAt))
			}
			inUse := 0
			for _, l := range told {
				if strings.Contains(l, "in-use=true") {
					inUse++
				}
			}
			t.Logf("%s: %d saves in %v (%d labelled in use); after the kill: log line %d of %d (%v before), rows %v of %v, commit %d of %d; last saves: %s",
				mode, len(told), steadyCrashFor, inUse, st.lines, w.lines, crash.Sub(st.logAt).Round(time.Millisecond), st.rows, w.rows, st.commits, w.commits, lastOf(told, 3))
		})
	}
}

// plainTestBinary builds this package's tests as a binary without the
// race detector: the app the crash test kills is RAMBar as it ships, whose
// copies between a program's writes take microseconds, not the ten times
// slower race-checked build the tests run as.
func plainTestBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "keeper.test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v %s", err, out)
	}
	return bin
}

// readLines reads r's lines until it ends.
func readLines(r io.Reader) []string {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// lastOf is the last n of lines, joined.
func lastOf(lines []string, n int) string {
	return strings.Join(lines[max(len(lines)-n, 0):], "; ")
}
