package keeper

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// liveSaves is how many saves each test of a disk in use makes while
// another process writes.
const liveSaves = 22

// TestFileRewrittenInPlaceIsSavedAsAVersionThatExisted: another process
// rewrites a 24 MiB file in place, version after version, without pause,
// through 22 saves. No save fails; every snapshot restores to a version
// of the file that existed (each chunk names its version: a torn copy
// mixes them), and the saves that could not find it holding still are
// labelled taken while in use. Every way of saving (liveWays).
func TestFileRewrittenInPlaceIsSavedAsAVersionThatExisted(t *testing.T) {
	for _, way := range liveWays {
		t.Run(way, func(t *testing.T) {
			ctx := context.Background()
			k, v := liveDisk(t, "Rewrite", "128m", liveSaves+2)
			sv := saverOf(t, k, v, way)
			big := bigVersioned(t, v.MountPoint)
			if _, err := sv.save(ctx); err != nil {
				t.Fatal(err)
			}
			w := startHelper(t, "rewrite", big)
			inUse := 0
			for i := 0; i < liveSaves; i++ {
				write(t, v.MountPoint, "notes/n.txt", fmt.Sprint("save ", i)) // something else changes too
				res, err := sv.save(ctx)
				if err != nil {
					t.Fatalf("save %d while the file is rewritten: %v", i, err)
				}
				if res.InUse != nil {
					inUse++
				}
			}
			stopHelper(w)
			// The writer was stopped mid-version: one last version, then
			// idle. The next save (by the feed, going on from the
			// snapshots taken while in use) holds it.
			const want = 1 << 40
			wf, err := os.OpenFile(big, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := errors.Join(writeVersion(wf, want, versionBuf()), wf.Close()); err != nil {
				t.Fatal(err)
			}
			if _, err := sv.save(ctx); err != nil {
				t.Fatal(err)
			}
			versions, of := map[uint64]bool{}, map[string]uint64{}
			snaps := restoreEach(t, k, v, "128m", func(s snapstore.Snapshot, root string) {
				got, err := versionOf(filepath.Join(root, "data/big.bin"))
				if err != nil {
					m, _ := k.store(mustState(t, k, v.Name)).Manifest(s.ID)
					t.Errorf("snapshot %s holds a version of big.bin that never existed: %v (%+v)", s.ID, err, m.Entries[2])
				}
				versions[got], of[s.ID] = true, got
			})
			if got := of[snaps[len(snaps)-1].ID]; got != want {
				t.Errorf("the save made once the disk was idle holds version %d of big.bin, not %d", got, want)
			}
			t.Logf("%s: %d snapshots restored, each a whole version (%d different); %d saves taken while in use, %d by the feed", way, len(snaps), len(versions), inUse, sv.fed)
		})
	}
}

// TestMaildirMovesDuringSavesLoseNoMessage: another process moves messages
// between a maildir's new/ and cur/ (renames, as a mail client does),
// without pause, through 22 saves. No save fails; every snapshot holds
// every message, whole, exactly once when it was consistent (a save that
// never saw the disk hold still may keep a moving message in both
// folders: splice.go); the files made meanwhile elsewhere are saved.
// Every way of saving (liveWays).
func TestMaildirMovesDuringSavesLoseNoMessage(t *testing.T) {
	for _, way := range liveWays {
		t.Run(way, func(t *testing.T) {
			ctx := context.Background()
			k, v := liveDisk(t, "Mail", "64m", liveSaves+2)
			sv := saverOf(t, k, v, way)
			dir := filepath.Join(v.MountPoint, "Maildir")
			makeMaildir(t, dir)
			if _, err := sv.save(ctx); err != nil {
				t.Fatal(err)
			}
			m := startHelper(t, "mover", dir)
			inUse := 0
			for i := 0; i < liveSaves; i++ {
				write(t, v.MountPoint, fmt.Sprintf("notes/n%d.txt", i), "new") // a change the save must take
				res, err := sv.save(ctx)
				if err != nil {
					t.Fatalf("save %d while messages move: %v", i, err)
				}
				if res.InUse != nil {
					inUse++
				}
			}
			stopHelper(m)
			// Idle now: the next save (by the feed, on from the saves
			// taken while in use) holds the disk exactly.
			if _, err := sv.save(ctx); err != nil {
				t.Fatal(err)
			}
			twice := 0
			snaps := restoreEach(t, k, v, "64m", func(s snapstore.Snapshot, root string) {
				n, err := maildirHolds(filepath.Join(root, "Maildir"))
				if err != nil || n > 0 && s.InUse == nil {
					t.Errorf("snapshot %s (in use: %v): %d messages twice, %v", s.ID, s.InUse != nil, n, err)
				}
				twice += n
			})
			if _, err := os.Stat(filepath.Join(v.MountPoint, "notes")); err != nil {
				t.Fatal(err)
			}
			last := snaps[len(snaps)-1]
			root := mountTmpfs(t, "64m")
			if _, err := k.store(mustState(t, k, "Mail")).Restore(ctx, last.ID, root, "", nil); err != nil {
				t.Fatal(err)
			}
			if ents, _ := os.ReadDir(filepath.Join(root, "notes")); len(ents) != liveSaves {
				t.Errorf("the last snapshot holds %d of the %d notes written during the saves", len(ents), liveSaves)
			}
			sameTree(t, digest(t, v.MountPoint), digest(t, root))
			t.Logf("%s: %d snapshots restored, every message in each (%d kept twice in all); %d saves taken while in use, %d by the feed", way, len(snaps), twice, inUse, sv.fed)
		})
	}
}

// mapper is a helper process that maps a file shared and writable.
type mapper struct {
	cmd *exec.Cmd
	in  io.Writer
	out *bufio.Scanner
}

func startMapper(t *testing.T, path string) *mapper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envLiveHelper+"=mapper", envLiveArg+"="+path, "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopHelper(cmd) })
	return &mapper{cmd: cmd, in: in, out: bufio.NewScanner(out)}
}

// poke writes b at off through the mapping.
func (m *mapper) poke(t *testing.T, off int, b byte) {
	t.Helper()
	fmt.Fprintf(m.in, "%d %d\n", off, b)
	if !m.out.Scan() || m.out.Text() != "ok" {
		t.Fatalf("mapper: %q %v", m.out.Text(), m.out.Err())
	}
}

// quit unmaps the file and waits for the mapper to end.
func (m *mapper) quit(t *testing.T) {
	t.Helper()
	fmt.Fprintln(m.in, "q")
	if err := m.cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestWritesThroughASharedMappingAreSeen: a process maps a file shared and
// writable (as LMDB and SQLite's -shm do) and writes a page again after
// its first write dirtied it, which tmpfs does not mark in the file's times.
// Dirty sees the change and the save keeps it; after the process unmaps
// the file and exits, the next save (as at eject, once apps have closed)
// still compares the file by content, so a write made since the last save
// is kept; then the file is no longer watched. Every way of saving
// (liveWays): a write through a mapping raises no event of the feed.
func TestWritesThroughASharedMappingAreSeen(t *testing.T) {
	for _, way := range liveWays {
		t.Run(way, func(t *testing.T) {
			ctx := context.Background()
			k, v := liveDisk(t, "Map", "32m", 10)
			sv := saverOf(t, k, v, way)
			db := filepath.Join(v.MountPoint, "db/data.mdb")
			write(t, v.MountPoint, "db/data.mdb", strings.Repeat("\x00", 64<<10))
			m := startMapper(t, db)
			m.poke(t, 0, 'a') // the first write to the page: its times move
			if _, err := sv.save(ctx); err != nil {
				t.Fatal(err)
			}
			saved := func(want string) {
				t.Helper()
				root := mountTmpfs(t, "32m")
				if _, err := k.store(mustState(t, k, "Map")).Restore(ctx, "", root, "", nil); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(root, "db/data.mdb"))
				if err != nil || string(b[:len(want)]) != want {
					t.Errorf("saved file starts %q, want %q (%v)", b[:len(want)], want, err)
				}
			}
			saved("a")
			if dirty, err := k.Dirty(v); err != nil || dirty {
				t.Fatalf("Dirty right after the save = %v, %v", dirty, err)
			}
			var before, after unix.Stat_t
			unix.Stat(db, &before)
			m.poke(t, 1, 'b') // the same page again: no time moves
			unix.Stat(db, &after)
			t.Logf("identity moved by the second write: %v", tree.IdentOf(&before) != tree.IdentOf(&after))
			if dirty, err := k.Dirty(v); err != nil || !dirty {
				t.Fatalf("Dirty after a write through the mapping = %v, %v; want true", dirty, err)
			}
			if res, err := sv.save(ctx); err != nil || res.Unchanged {
				t.Fatalf("save after a write through the mapping = %+v, %v", res, err)
			}
			saved("ab")
			m.poke(t, 2, 'c')
			m.quit(t) // the app closes: no mapping is left to see
			if dirty, err := k.Dirty(v); err != nil || !dirty {
				t.Fatalf("Dirty after the mapper ended = %v, %v; want true", dirty, err)
			}
			if res, err := sv.save(ctx); err != nil || res.Unchanged {
				t.Fatalf("the save once the mapper ended = %+v, %v", res, err)
			}
			saved("abc")
			if res, err := sv.save(ctx); err != nil || !res.Unchanged {
				t.Fatalf("a save with nothing changed since = %+v, %v", res, err)
			}
			if w := watchedIn(t, k.store(mustState(t, k, "Map")).LoadIndex()); len(w) != 0 {
				t.Errorf("the index still watches %v", w)
			}
			t.Logf("%s: %d saves by the feed", way, sv.fed)
		})
	}
}

// watchedIn lists the files index x watches.
func watchedIn(t *testing.T, x *snapstore.Index) []string {
	t.Helper()
	if x == nil {
		t.Fatal("no index")
	}
	var out []string
	c := x.Cursor()
	for p, _, ok := c.Next(); ok; p, _, ok = c.Next() {
		if c.Watched {
			out = append(out, string(p))
		}
	}
	return out
}

// mustState is name's state.
func mustState(t *testing.T, k *Keeper, name string) State {
	t.Helper()
	st, err := k.State(name)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSQLiteWrittenDuringSaves: a database is written by one sqlite3
// process after another (each a transaction that adds a row and counts it,
// with frequent checkpoints in WAL mode), through 22 saves, in WAL and in
// rollback-journal mode. No save is refused, and every snapshot restores to
// a database that passes integrity_check and whose count matches its rows,
// unless it is labelled taken while in use. Every way of saving
// (liveWays).
func TestSQLiteWrittenDuringSaves(t *testing.T) {
	for _, mode := range []string{"wal", "delete"} {
		for _, way := range liveWays {
			sqliteWrittenDuringSaves(t, mode, way)
		}
	}
}

// sqliteWrittenDuringSaves is TestSQLiteWrittenDuringSaves in journal mode
// mode, saving the disk way.
func sqliteWrittenDuringSaves(t *testing.T, mode, way string) {
	t.Run(mode+"-"+way, func(t *testing.T) {
		ctx := context.Background()
		k, v := liveDisk(t, "DB", "256m", liveSaves+2) // a fast machine's writers fill 64 MiB
		sv := saverOf(t, k, v, way)
		db := filepath.Join(v.MountPoint, "app/data.sqlite")
		os.MkdirAll(filepath.Dir(db), 0o755)
		sql := "PRAGMA journal_mode=" + mode + "; CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB); CREATE TABLE c(n INTEGER); INSERT INTO c VALUES (0);"
		if out, err := exec.Command("sqlite3", db, sql).CombinedOutput(); err != nil {
			t.Fatalf("sqlite3: %v %s", err, out)
		}
		if _, err := sv.save(ctx); err != nil {
			t.Fatal(err)
		}
		stop, done := make(chan struct{}), make(chan int)
		go func() {
			n := 0
			defer func() { done <- n }()
			for ; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				q := "PRAGMA journal_mode=" + mode + "; BEGIN; INSERT INTO t(v) VALUES (randomblob(3000)); UPDATE c SET n = n + 1; COMMIT;"
				if n%3 == 0 {
					q += " PRAGMA wal_checkpoint(TRUNCATE);"
				}
				if out, err := exec.Command("sqlite3", "-cmd", ".timeout 5000", db, q).CombinedOutput(); err != nil {
					t.Errorf("writer: %v %s", err, out)
					return
				}
			}
		}()
		inUse := 0
		for i := 0; i < liveSaves; i++ {
			res, err := sv.save(ctx)
			if err != nil {
				t.Fatalf("save %d while the database is written: %v", i, err)
			}
			if res.InUse != nil {
				inUse++
			}
			time.Sleep(20 * time.Millisecond)
		}
		close(stop)
		writes := <-done
		consistent := 0
		snaps := restoreEach(t, k, v, "256m", func(s snapstore.Snapshot, root string) {
			out, err := exec.Command("sqlite3", filepath.Join(root, "app/data.sqlite"),
				"PRAGMA integrity_check; SELECT count(*) = (SELECT n FROM c) FROM t;").CombinedOutput()
			switch {
			case err == nil && string(out) == "ok\n1\n":
				consistent++
			case s.InUse == nil:
				t.Errorf("snapshot %s, not labelled in use: %q %v", s.ID, out, err)
			}
		})
		t.Logf("%s, %s: %d transactions by separate sqlite3 processes; %d snapshots, %d whole, %d saves taken while in use, %d by the feed",
			mode, way, writes, len(snaps), consistent, inUse, sv.fed)
	})
}
