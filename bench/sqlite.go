package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"rambar/internal/run"
)

// lookTool returns the absolute path of a tool in the system folders
// (run.Resolve: the one lookup every part of RAMBar uses), or "" when it is not
// installed.
func lookTool(name string) string {
	p, err := run.Resolve(name)
	if err != nil {
		return ""
	}
	return p
}

// toolEnv is the environment of every tool the package starts: the user's,
// with LC_ALL=C so output can be parsed.
func toolEnv() []string { return append(os.Environ(), "LC_ALL=C") }

func skipSQLite(*runEnv, string) *words {
	if lookTool("sqlite3") == "" {
		return wordsOf("sqlite3 not installed")
	}
	return nil
}

// sqliteFullPragmas are the statements that turn full sync on.
func sqliteFullPragmas() string {
	if runtime.GOOS == "darwin" {
		return "PRAGMA synchronous=FULL;\nPRAGMA fullfsync=ON;\n"
	}
	return "PRAGMA synchronous=FULL;\n"
}

var syncNames = map[string]string{"0": "OFF", "1": "NORMAL", "2": "FULL", "3": "EXTRA"}

// runSQLite drives the sqlite3 command-line tool (no cgo, no driver module):
// statements go in on stdin, and the clock runs from the tool answering
// "ready" (table made, pragmas set) to it answering "done" after the
// autocommit inserts, so starting the process is not timed.
// Sample: µs per insert.
func runSQLite(ctx context.Context, e *runEnv, dir string, st *jobState, full bool) ([]float64, error) {
	tool := lookTool("sqlite3")
	db := filepath.Join(dir, "bench.db")
	cmd := exec.CommandContext(ctx, tool, "-batch", db)
	cmd.Env = toolEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sqlite3: %w", err)
	}
	out := bufio.NewReader(outPipe)
	fail := func(err error) ([]float64, error) {
		in.Close()
		cmd.Wait()
		if s := strings.TrimSpace(stderr.String()); s != "" {
			return nil, fmt.Errorf("sqlite3: %w: %s", err, s)
		}
		return nil, fmt.Errorf("sqlite3: %w", err)
	}
	setup := "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);\n"
	if full {
		setup = sqliteFullPragmas() + setup
	}
	setup += "PRAGMA synchronous;\nSELECT 'ready';\n"
	if _, err := io.WriteString(in, setup); err != nil {
		return fail(err)
	}
	var syncMode string
	for {
		line, err := out.ReadString('\n')
		if err != nil {
			return fail(err)
		}
		line = strings.TrimSpace(line)
		if line == "ready" {
			break
		}
		syncMode = line
	}
	var stmts bytes.Buffer
	for i := 0; i < e.sz.inserts; i++ {
		fmt.Fprintf(&stmts, "INSERT INTO t(v) VALUES('row %06d of the RAMBar storage benchmark, sixty-four bytes');\n", i)
	}
	stmts.WriteString("SELECT 'done';\n")
	t0 := time.Now()
	if _, err := in.Write(stmts.Bytes()); err != nil {
		return fail(err)
	}
	for {
		line, err := out.ReadString('\n')
		if err != nil {
			return fail(err)
		}
		if strings.TrimSpace(line) == "done" {
			break
		}
	}
	d := time.Since(t0)
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fail(err)
	}
	if s := strings.TrimSpace(stderr.String()); s != "" {
		return nil, fmt.Errorf("sqlite3: %s", s)
	}
	// The full row's label says what it sets; the default row's note says
	// what this sqlite3 does when nothing is set (Debian's: FULL).
	if n, ok := syncNames[syncMode]; ok && !full {
		st.notes = []*words{wordsOf("sets no PRAGMA; this sqlite3's default is synchronous=%s", n)}
	}
	return []float64{float64(d.Microseconds()) / float64(e.sz.inserts)}, nil
}
