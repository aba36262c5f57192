package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"rambar/internal/diskspace"
)

// TestRunQuickOnTmpfsAndDisk runs the whole quick benchmark on a real tmpfs
// and a real disk folder and checks the plumbing: every row on every target,
// the right units, medians within min–max, the fsync row's own sync count,
// progress, table, JSON and SVG, and nothing left behind.
func TestRunQuickOnTmpfsAndDisk(t *testing.T) {
	ram := mountTmpfs(t, "256m")
	disk := diskDir(t)
	targets := []Target{{Name: "Scratch", Dir: ram, RAM: true}, {Name: "Disk", Dir: disk}}
	opts := Options{Quick: true, Runs: 2}
	var steps []Progress
	before := syncCalls.Load()
	rep, err := Run(context.Background(), targets, opts, func(p Progress) { steps = append(steps, p) })
	if err != nil {
		t.Fatal(err)
	}
	if got := syncCalls.Load() - before; got < int64(2*2*quickSizes.fsyncs) {
		t.Errorf("package sync counter rose by %d, want at least %d (fsync row, 2 runs, 2 targets)", got, 2*2*quickSizes.fsyncs)
	}
	wantUnit := map[RowID]Unit{rowSeqWrite: MiBps, rowSeqRead: MiBps, rowFsync: Micros, rowFullFsync: Micros,
		rowSQLiteDefault: Micros, rowSQLiteFull: Micros, rowUntar: Secs, rowCreateFiles: Secs, rowDeleteFiles: Secs}
	if len(rep.Rows) != len(allRows)-1 || len(rep.Targets) != 2 {
		t.Fatalf("report has %d rows and %d targets; want every row but F_FULLFSYNC's (macOS only), and 2", len(rep.Rows), len(rep.Targets))
	}
	for _, p := range steps {
		if p.Row == rowFullFsync {
			t.Fatalf("the macOS-only F_FULLFSYNC row was scheduled on Linux: %+v", p)
		}
	}
	if last := steps[len(steps)-1]; last.Steps != last.Step || last.Steps != 2*2*(len(plan(rep.Rows))) {
		t.Errorf("progress ends at step %d of %d, want %d of them", last.Step, last.Steps, 2*2*len(plan(rep.Rows)))
	}
	if rep.Targets[0].FS != "tmpfs" || rep.Targets[1].FS == "tmpfs" {
		t.Errorf("file systems: %q, %q", rep.Targets[0].FS, rep.Targets[1].FS)
	}
	haveSQLite := lookTool("sqlite3") != ""
	for _, tr := range rep.Targets {
		for _, id := range allRows {
			r, ok := tr.Result(id)
			if !ok && id != rowFullFsync {
				t.Errorf("%s: row %s missing", tr.Name, id)
				continue
			}
			if id == rowFullFsync {
				if ok {
					t.Errorf("%s: F_FULLFSYNC row on Linux: %+v, want none", tr.Name, r)
				}
				continue
			}
			if r.Unit != wantUnit[id] {
				t.Errorf("%s %s: unit %q, want %q", tr.Name, id, r.Unit, wantUnit[id])
			}
			switch {
			case (id == rowSQLiteDefault || id == rowSQLiteFull) && !haveSQLite:
				if r.Skipped != "sqlite3 not installed" {
					t.Errorf("%s %s without sqlite3: %+v", tr.Name, id, r)
				}
				continue
			}
			if !r.OK() || len(r.Samples) != 2 {
				t.Errorf("%s %s: not measured: %+v", tr.Name, id, r)
				continue
			}
			if !(r.Min <= r.Median && r.Median <= r.Max && r.Min > 0) {
				t.Errorf("%s %s: median %v outside [%v, %v]", tr.Name, id, r.Median, r.Min, r.Max)
			}
		}
		fs, _ := tr.Result(rowFsync)
		if fs.Syncs != int64(2*quickSizes.fsyncs) || fs.Ops != quickSizes.fsyncs {
			t.Errorf("%s: fsync row made %d syncs for %d writes per run, want %d", tr.Name, fs.Syncs, fs.Ops, 2*quickSizes.fsyncs)
		}
		if sq, _ := tr.Result(rowSQLiteDefault); haveSQLite && !strings.HasPrefix(sq.Note, "sets no PRAGMA; this sqlite3's default is synchronous=") {
			t.Errorf("%s: SQLite default row should say which synchronous mode is the default: %q", tr.Name, sq.Note)
		}
		if sq, _ := tr.Result(rowSQLiteFull); sq.Note != "" {
			t.Errorf("%s: the full-sync row's label says what it sets; its note %q repeats it", tr.Name, sq.Note)
		}
		if left := leftovers(t, tr.Dir); len(left) != 0 {
			t.Errorf("%s: benchmark left %v behind", tr.Name, left)
		}
	}
	if want := 2 * len(plan(rep.Rows)) * 2; len(steps) != want {
		t.Errorf("%d progress reports, want %d", len(steps), want)
	}
	for i, p := range steps {
		if p.Step != i+1 || p.Steps != len(steps) || p.Label == "" || !strings.Contains(p.String(), fmt.Sprintf("run %d of 2", p.Run)) {
			t.Errorf("progress %d: %+v %q", i, p, p.String())
		}
	}

	table := rep.Table()
	for _, want := range []string{"64 MiB write, uncached", "64 MiB read, uncached", "4 KiB write + fsync",
		"SQLite insert, no PRAGMA (sqlite3's defaults)", "SQLite insert, PRAGMA synchronous=FULL", "untar 600 files (13 MiB)",
		"create 2,000 files of 1 KiB", "delete those 2,000 files", " MiB/s [", " µs [", " s [", "RAM vs disk", "Scratch (tmpfs)", "×"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "F_FULLFSYNC") {
		t.Errorf("the table has the macOS-only F_FULLFSYNC row on Linux:\n%s", table)
	}
	t.Logf("\n%s", table)

	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil || back.Version != reportVersion || len(back.Targets) != 2 || back.Targets[1].Results[0].Median != rep.Targets[1].Results[0].Median {
		t.Errorf("JSON round trip: %v %+v", err, back.Targets)
	}

	svg := rep.SVG()
	dec := xml.NewDecoder(strings.NewReader(svg))
	rects := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	// background + one bar per row measured on both (one RAM disk: no legend)
	compared := 0
	for _, row := range rep.Rows {
		a, _ := rep.Targets[0].Result(row.ID)
		d, _ := rep.Targets[1].Result(row.ID)
		if a.OK() && d.OK() {
			compared++
		}
	}
	if rects != 1+compared {
		t.Errorf("SVG has %d rects, want %d", rects, 1+compared)
	}
}

// TestNoRoomRefusesAndFillsNothing: a target without room for a row is not
// filled; the row says why and Problems reports it.
func TestNoRoomRefusesAndFillsNothing(t *testing.T) {
	ram := mountTmpfs(t, "8m")
	free0, err := diskspace.Free(ram)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []Target{{Name: "Tiny", Dir: ram, RAM: true}}, Options{Quick: true, Runs: 1, Rows: []RowID{rowSeqWrite, rowSeqRead, rowFsync}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []RowID{rowSeqWrite, rowSeqRead} {
		r, _ := rep.Targets[0].Result(id)
		if !strings.HasPrefix(r.Skipped, "no room: needs 80 MiB") || len(r.Samples) != 0 {
			t.Errorf("%s on an 8 MiB tmpfs: %+v", id, r)
		}
	}
	if r, _ := rep.Targets[0].Result(rowFsync); !r.OK() {
		t.Errorf("fsync row fits in 8 MiB and should run: %+v", r)
	}
	if p := rep.Problems(); len(p) != 2 || !strings.Contains(p[0], "Tiny: seq-write: no room") {
		t.Errorf("problems: %q", p)
	}
	if !strings.Contains(rep.Table(), "no room: needs 80 MiB, ") {
		t.Errorf("table does not say why:\n%s", rep.Table())
	}
	if free1, _ := diskspace.Free(ram); free1 != free0 {
		t.Errorf("free space %d before, %d after", free0, free1)
	}
}

// TestCachedFallbackIsSaid: when the sequential files cannot bypass the
// cache the cells say so. (tmpfs on Linux 6.6 and later accepts O_DIRECT, so
// the refusal is simulated with NoDirect; the EINVAL path in openUncached is
// the same fallback.)
func TestCachedFallbackIsSaid(t *testing.T) {
	ram := mountTmpfs(t, "128m")
	rep, err := Run(context.Background(), []Target{{Name: "Scratch", Dir: ram, RAM: true}}, Options{Quick: true, Runs: 1, Rows: []RowID{rowSeqWrite, rowSeqRead}, NoDirect: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []RowID{rowSeqWrite, rowSeqRead} {
		r, _ := rep.Targets[0].Result(id)
		if r.Note != "cached (O_DIRECT unsupported on tmpfs)" || !strings.Contains(r.Cell(), "cached (O_DIRECT unsupported on tmpfs)") {
			t.Errorf("%s: note %q, cell %q", id, r.Note, r.Cell())
		}
	}
}

// TestBadTargets: a missing folder or a file is refused before anything is
// written.
func TestBadTargets(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	for _, dir := range []string{filepath.Join(t.TempDir(), "missing"), f} {
		if _, err := Run(context.Background(), []Target{{Name: "x", Dir: dir}}, Options{Quick: true}, nil); err == nil {
			t.Errorf("Run on %s: no error", dir)
		}
	}
	if _, err := Run(context.Background(), nil, Options{}, nil); err != errNoTargets {
		t.Errorf("no targets: %v", err)
	}
}

// TestCancelCleansUp: cancelling mid-run returns the context's error and
// removes the benchmark's files.
func TestCancelCleansUp(t *testing.T) {
	ram := mountTmpfs(t, "256m")
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Run(ctx, []Target{{Name: "Scratch", Dir: ram}}, Options{Quick: true, Runs: 3}, func(p Progress) {
		if p.Step == 4 {
			cancel()
		}
	})
	if err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if left := leftovers(t, ram); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestFsyncRowCallsFsyncUnderStrace runs the fsync row in a child process
// under strace and counts the fsync calls the kernel saw: at least one per
// 4 KB write. (The package's own counter is checked in
// TestRunQuickOnTmpfsAndDisk; this checks that the calls reach the kernel.)
func TestFsyncRowCallsFsyncUnderStrace(t *testing.T) {
	strace := lookTool("strace")
	if strace == "" {
		t.Fatal("strace is needed for this test (apt-get install strace)")
	}
	dir := diskDir(t)
	out := filepath.Join(t.TempDir(), "strace.txt")
	cmd := exec.Command(strace, "-f", "-c", "-o", out, "-e", "trace=fsync,fdatasync",
		os.Args[0])
	cmd.Env = append(os.Environ(), "RAMBAR_BENCH_CHILD_DIR="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child under strace: %v\n%s", err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	calls := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "  99.61    0.083410         417       200           fsync"
		fs := strings.Fields(sc.Text())
		if len(fs) >= 5 && (fs[len(fs)-1] == "fsync" || fs[len(fs)-1] == "fdatasync") {
			n, err := strconv.Atoi(fs[3])
			if err == nil {
				calls[fs[len(fs)-1]] = n
			}
		}
	}
	t.Logf("strace counted %v for %d writes", calls, quickSizes.fsyncs)
	if calls["fsync"] < quickSizes.fsyncs {
		b, _ := os.ReadFile(out)
		t.Errorf("strace saw %d fsync calls, want at least %d (one per write):\n%s", calls["fsync"], quickSizes.fsyncs, b)
	}
}
