//go:build linux

package keeper

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The programs of the steady-writing tests (steady_linux_test.go), as
// users' own programs write: a log appended every 10 ms through one
// descriptor that is never closed; a database in each journal mode, each
// committing a row every 10 ms through one sqlite3 process that holds it
// open; and git committing a changed file every 300 ms.

// steadyDBs are the databases the writers commit to, by journal mode,
// each in a folder of its own, as two programs keep theirs.
var steadyDBs = map[string]string{"delete": "rollback/data.sqlite", "wal": "wal/data.sqlite"}

const (
	steadyLog   = "log/app.log"
	steadyRepo  = "repo"
	steadyTick  = 10 * time.Millisecond
	steadyGitEv = 300 * time.Millisecond
	logPad      = 80 // bytes of padding in each log line
)

// steadyWriters are the writers running on one disk.
type steadyWriters struct {
	stop    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	errs    []error
	sqlites []*exec.Cmd
	commits int
	rows    map[string]int
	lines   int
}

// startSteadyWriters makes the log, the databases (of the journal modes
// named, both when none is) and the repository on the disk at root and
// starts writing them; halt stops them.
func startSteadyWriters(t *testing.T, root string, modes ...string) *steadyWriters {
	t.Helper()
	if len(modes) == 0 {
		modes = []string{"delete", "wal"}
	}
	w := &steadyWriters{stop: make(chan struct{}), rows: map[string]int{}}
	for _, d := range []string{"log", "rollback", "wal", steadyRepo} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log, err := os.OpenFile(filepath.Join(root, steadyLog), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	w.every(steadyTick, func(n int) error {
		_, err := fmt.Fprintf(log, "%08d %d %s\n", n, time.Now().UnixNano(), strings.Repeat("x", logPad))
		w.mu.Lock()
		w.lines = n
		w.mu.Unlock()
		return err
	}, func() { log.Close() })
	for _, mode := range modes {
		db := filepath.Join(root, steadyDBs[mode])
		setup := "PRAGMA journal_mode=" + mode + "; CREATE TABLE t(id INTEGER PRIMARY KEY, at INTEGER, v BLOB); CREATE TABLE c(n INTEGER); INSERT INTO c VALUES (0);"
		if out, err := exec.Command("sqlite3", db, setup).CombinedOutput(); err != nil {
			t.Fatalf("sqlite3: %v %s", err, out)
		}
		cmd := exec.Command("sqlite3", db)
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.sqlites = append(w.sqlites, cmd)
		fmt.Fprintf(in, ".timeout 5000\nPRAGMA journal_mode=%s;\n", mode)
		w.every(steadyTick, func(n int) error {
			_, err := fmt.Fprintf(in, "BEGIN; INSERT INTO t(at, v) VALUES (%d, randomblob(2000)); UPDATE c SET n = n + 1; COMMIT;\n", time.Now().UnixNano())
			w.mu.Lock()
			w.rows[mode] = n
			w.mu.Unlock()
			return err
		}, func() { in.Close(); cmd.Wait() })
	}
	repo := filepath.Join(root, steadyRepo)
	if out, err := steadyGit(repo, "init", "-q"); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	w.every(steadyGitEv, func(n int) error {
		if err := os.WriteFile(filepath.Join(repo, "counter.txt"), []byte(strconv.Itoa(n)+"\n"), 0o644); err != nil {
			return err
		}
		if out, err := steadyGit(repo, "add", "-A"); err != nil {
			return fmt.Errorf("git add: %v %s", err, out)
		}
		if out, err := steadyGit(repo, "commit", "-q", "-m", strconv.Itoa(n)); err != nil {
			return fmt.Errorf("git commit: %v %s", err, out)
		}
		w.mu.Lock()
		w.commits = n
		w.mu.Unlock()
		return nil
	}, nil)
	t.Cleanup(w.halt)
	return w
}

// steadyGit runs git with args in repo, as a fixed user.
func steadyGit(repo string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=Steady", "-c", "user.email=steady@example.invalid",
		"-c", "safe.directory=*", "-c", "gc.auto=0"}, args...)...)
	return cmd.CombinedOutput()
}

// every runs step(1), step(2), ... every d until halted, then done.
func (w *steadyWriters) every(d time.Duration, step func(n int) error, done func()) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		if done != nil {
			defer done()
		}
		tick := time.NewTicker(d)
		defer tick.Stop()
		for n := 1; ; n++ {
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
			if err := step(n); err != nil {
				w.mu.Lock()
				w.errs = append(w.errs, err)
				w.mu.Unlock()
				return
			}
		}
	}()
}

// halt stops the writers (once) and waits for them.
func (w *steadyWriters) halt() {
	select {
	case <-w.stop:
		return
	default:
	}
	close(w.stop)
	w.wg.Wait()
}

// failed reports the writers' own failures.
func (w *steadyWriters) failed(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, err := range w.errs {
		t.Errorf("a writer failed: %v", err)
	}
}

// steadyState is what a restored tree holds of the writers' work.
type steadyState struct {
	lines   int              // whole log lines, in order from 1
	logAt   time.Time        // when the last was written
	rows    map[string]int   // rows of each database, by journal mode
	rowAt   map[string]int64 // when the last row of each was written (ns)
	commits int              // git commits
	gitAt   time.Time        // the last one's commit time
}

// checkSteady checks the writers' files as restored at root: every log
// line whole and in order, each database whole (integrity_check) with its
// count matching its rows, the repository whole (git fsck); it returns what
// they hold.
func checkSteady(t *testing.T, root, what string) steadyState {
	t.Helper()
	s := steadyState{rows: map[string]int{}, rowAt: map[string]int64{}}
	if f, err := os.Open(filepath.Join(root, steadyLog)); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var n int
			var at int64
			var pad string
			line := sc.Text()
			if _, err := fmt.Sscanf(line, "%d %d %s", &n, &at, &pad); err != nil || n != s.lines+1 || len(pad) != logPad {
				t.Errorf("%s: log line %d is not whole or out of order: %q", what, s.lines+1, line)
				break
			}
			s.lines, s.logAt = n, time.Unix(0, at)
		}
		f.Close()
	}
	for mode, rel := range steadyDBs {
		db := filepath.Join(root, rel)
		if _, err := os.Stat(db); err != nil {
			continue
		}
		out, err := exec.Command("sqlite3", db, "PRAGMA integrity_check; SELECT count(*) = (SELECT n FROM c), count(*), coalesce(max(at), 0) FROM t;").CombinedOutput()
		f := strings.Fields(strings.ReplaceAll(string(out), "|", " "))
		if err != nil || len(f) != 4 || f[0] != "ok" || f[1] != "1" {
			t.Errorf("%s: the %s database is not whole: %q %v", what, mode, out, err)
			continue
		}
		s.rows[mode], _ = strconv.Atoi(f[2])
		s.rowAt[mode], _ = strconv.ParseInt(f[3], 10, 64)
	}
	repo := filepath.Join(root, steadyRepo)
	if _, err := os.Stat(filepath.Join(repo, ".git/HEAD")); err == nil {
		if out, err := steadyGit(repo, "fsck", "--no-dangling", "--no-progress"); err != nil {
			t.Errorf("%s: git fsck: %v %s", what, err, out)
		}
		if out, err := steadyGit(repo, "log", "-1", "--format=%s %ct"); err == nil {
			var at int64
			fmt.Sscanf(string(out), "%d %d", &s.commits, &at)
			s.gitAt = time.Unix(at, 0)
		}
	}
	return s
}
