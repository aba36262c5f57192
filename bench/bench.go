package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"rambar/i18n"
	"rambar/ramdisk"
)

// Target is one place to measure: a RAM disk's mount point or a folder on an
// ordinary disk. Run works in a private subfolder of Dir and removes it.
type Target struct {
	Name string `json:"name"` // shown in the table: "Scratch", "Home disk"
	Dir  string `json:"dir"`
	RAM  bool   `json:"ram"` // a RAM disk: the speedup column compares RAM with disk
}

// RowID names a benchmark row. The values appear in `--json` output.
type RowID string

// The rows, in the seed's order.
const (
	rowSeqWrite      RowID = "seq-write"      // sequential write bypassing the cache, MiB/s
	rowSeqRead       RowID = "seq-read"       // sequential read bypassing the cache, MiB/s
	rowFsync         RowID = "fsync"          // 4 KB write + fsync, µs per write
	rowFullFsync     RowID = "fullfsync"      // 4 KB write + F_FULLFSYNC (macOS), µs per write
	rowSQLiteDefault RowID = "sqlite-default" // SQLite autocommit insert, no PRAGMA set, µs
	rowSQLiteFull    RowID = "sqlite-full"    // SQLite insert, synchronous=FULL (+ fullfsync=ON on macOS), µs
	rowUntar         RowID = "untar"          // unpack a standard-library-shaped archive, s
	rowCreateFiles   RowID = "create-files"   // create many 1 KB files, s
	rowDeleteFiles   RowID = "delete-files"   // delete them, s
)

// allRows lists every row in table order.
var allRows = []RowID{rowSeqWrite, rowSeqRead, rowFsync, rowFullFsync, rowSQLiteDefault, rowSQLiteFull, rowUntar, rowCreateFiles, rowDeleteFiles}

// AllRows lists the rows this OS runs, in table order (for the CLI's
// --rows): every row but F_FULLFSYNC's outside macOS, which is never
// scheduled there.
func AllRows() []RowID {
	var out []RowID
	for _, r := range allRows {
		if rowHere(r) {
			out = append(out, r)
		}
	}
	return out
}

// rowHere reports whether this OS can run the row at all.
func rowHere(id RowID) bool { return id != rowFullFsync || haveFullFsync }

// RowList names the rows this OS runs as words, in order: "seq-write,
// seq-read, …".
func RowList() string {
	var names []string
	for _, r := range AllRows() {
		names = append(names, string(r))
	}
	return strings.Join(names, ", ")
}

// Unit is a row's unit.
type Unit string

// Units of the rows.
const (
	MiBps  Unit = "MiB/s" // mebibytes (2^20 bytes) per second; higher is better
	Micros Unit = "µs"    // microseconds per operation; lower is better
	Secs   Unit = "s"     // seconds for the whole task; lower is better
)

// HigherIsBetter reports whether a larger figure is a better one.
func (u Unit) HigherIsBetter() bool { return u == MiBps }

// Options choose how much work each row does.
type Options struct {
	// Quick scales the rows down (64 MiB sequential, 200 fsyncs, fewer files)
	// for a run of seconds instead of minutes.
	Quick bool
	// Runs is how many times each row runs; 0 means 3 (the seed's count).
	Runs int
	// Rows limits the benchmark to these rows; empty means every row this
	// OS runs (AllRows).
	Rows []RowID
	// NoDirect opens the sequential files without bypassing the cache, as
	// if the file system refused to; tests use it to check the fallback.
	NoDirect bool
	// Speaker says Compare's progress lines in a person's language (nil:
	// English); Run's are Progress values, said by their In.
	Speaker i18n.Speaker
}

// Progress is reported before each run of each row.
type Progress struct {
	Target string `json:"target"`
	Row    RowID  `json:"row"`
	Label  string `json:"label"`
	Run    int    `json:"run"` // 1-based
	Runs   int    `json:"runs"`
	Step   int    `json:"step"` // 1-based over the whole benchmark
	Steps  int    `json:"steps"`
	sizes  sizes  // the label's sizes
}

// String is the progress line: "[3/27] Home disk: 1 GiB write, uncached (run 2 of 3)".
func (p Progress) String() string { return p.In(nil) }

// In is the progress line in sp's language (nil: English, as String).
func (p Progress) In(sp i18n.Speaker) string {
	t, label := tongue{sp}, p.Label
	if w := labelWords(p.Row, p.sizes); sp != nil && w.String() == label {
		label = w.in(t)
	}
	return t.T("[%d/%d] %s: %s (run %d of %d)", p.Step, p.Steps, t.name(p.Target), label, p.Run, p.Runs)
}

// Result is one row measured on one target.
type Result struct {
	Row     RowID     `json:"row"`
	Unit    Unit      `json:"unit"`
	Median  float64   `json:"median"`
	Min     float64   `json:"min"`
	Max     float64   `json:"max"`
	Samples []float64 `json:"samples"`
	// Ops is the operations timed in one run (writes, inserts, files).
	Ops int `json:"ops"`
	// Syncs counts the fsync-class calls (fsync, F_FULLFSYNC) this row made
	// itself over all its runs; SQLite's own are not counted.
	Syncs int64 `json:"syncs"`
	// Note qualifies a figure: "cached (O_DIRECT unsupported on tmpfs)".
	Note string `json:"note,omitempty"`
	// Skipped says why the row was not measured: "n/a on Linux",
	// "sqlite3 not installed", "no room: needs 1 GiB, 300 MiB free".
	Skipped string `json:"skipped,omitempty"`
	// Err is a failure while measuring.
	Err string `json:"error,omitempty"`
	// skipped and notes are what Skipped and Note were made from, to be
	// said in a person's language (table.go).
	skipped *words
	notes   []*words
}

// OK reports whether the result holds a measurement.
func (r Result) OK() bool { return r.Skipped == "" && r.Err == "" && len(r.Samples) > 0 }

// TargetReport is every row on one target.
type TargetReport struct {
	Target
	FS      string   `json:"fs"` // the file system's type name: "tmpfs", "ext4", "apfs"
	Results []Result `json:"results"`
}

// Result returns the result of row id, if measured or skipped.
func (t TargetReport) Result(id RowID) (Result, bool) {
	for _, r := range t.Results {
		if r.Row == id {
			return r, true
		}
	}
	return Result{}, false
}

// reportVersion is the version of Report's JSON document: 2 since the
// sequential rows are in MiB/s (version 1 had decimal MB/s).
const reportVersion = 2

// Report is a whole benchmark.
type Report struct {
	Version int            `json:"version"`
	OS      string         `json:"os"`
	Quick   bool           `json:"quick"`
	Runs    int            `json:"runs"`
	Rows    []RowInfo      `json:"rows"`
	Targets []TargetReport `json:"targets"`
	Started time.Time      `json:"started"`
	Elapsed float64        `json:"elapsed_seconds"`
}

// RowInfo describes a row as run (its label depends on the sizes).
type RowInfo struct {
	ID    RowID  `json:"id"`
	Label string `json:"label"`
	Unit  Unit   `json:"unit"`
}

// Problems lists rows that failed or were refused for lack of room, one line
// each ("Home disk: untar: no room: ..."); n/a rows are not problems.
func (r Report) Problems() []string {
	var out []string
	for _, t := range r.Targets {
		for _, x := range t.Results {
			switch {
			case x.Err != "":
				out = append(out, fmt.Sprintf("%s: %s: %s", t.Name, x.Row, x.Err))
			case len(x.Skipped) > 7 && x.Skipped[:7] == "no room":
				out = append(out, fmt.Sprintf("%s: %s: %s", t.Name, x.Row, x.Skipped))
			}
		}
	}
	return out
}

// sizes is how much work each row does.
type sizes struct {
	seq          int64 // bytes written then read
	block        int   // sequential block size
	fsyncs       int   // 4 KB writes, each followed by a sync
	inserts      int   // SQLite autocommit inserts
	archiveFiles int   // files in the archive
	archiveBytes int64 // their total size
	smallFiles   int   // 1 KB files created and deleted
}

var (
	fullSizes  = sizes{seq: 1 << 30, block: 1 << 20, fsyncs: 500, inserts: 500, archiveFiles: 2900, archiveBytes: 70_000_000, smallFiles: 20000}
	quickSizes = sizes{seq: 64 << 20, block: 1 << 20, fsyncs: 200, inserts: 100, archiveFiles: 600, archiveBytes: 14_000_000, smallFiles: 2000}
)

func (o Options) sizes() sizes {
	if o.Quick {
		return quickSizes
	}
	return fullSizes
}

func (o Options) runs() int {
	if o.Runs <= 0 {
		return 3
	}
	return o.Runs
}

// Labels returns the row labels for these options, as the table shows them.
func (o Options) Labels() []RowInfo {
	sz := o.sizes()
	want := o.Rows
	if len(want) == 0 {
		want = AllRows()
	}
	var out []RowInfo
	for _, r := range allRows {
		if slices.Contains(want, r) {
			out = append(out, RowInfo{r, labelWords(r, sz).String(), unitOf[r]})
		}
	}
	return out
}

// ParseRow reads a row id as given on the command line. A row this OS
// cannot run (fullfsync outside macOS) wraps ramdisk.ErrUnsupported.
func ParseRow(s string) (RowID, error) {
	for _, r := range allRows {
		if string(r) != s {
			continue
		}
		if !rowHere(r) {
			return "", fmt.Errorf("benchmark row %s is %w: F_FULLFSYNC is macOS only (rows here: %s)", s, ramdisk.ErrUnsupported, RowList())
		}
		return r, nil
	}
	return "", fmt.Errorf("unknown benchmark row %q (rows: %s)", s, RowList())
}

// syncCalls counts every fsync-class call this package makes, so tests can
// check that the fsync rows really sync.
var syncCalls atomic.Int64

func fsync(f *os.File) error {
	syncCalls.Add(1)
	return f.Sync()
}

// errNoTargets is returned when Run is given nothing to measure.
var errNoTargets = errors.New("nothing to benchmark")

// Run measures every target with the rows of opts and reports each run
// through progress (which may be nil). A row that cannot run on a target
// (no room, n/a on this OS, sqlite3 missing, a failure) is recorded in its
// Result and the others go on. Run returns an error only for a target that
// cannot be used at all (missing, not a folder, not writable) or when ctx is
// cancelled; it always removes its own files.
func Run(ctx context.Context, targets []Target, opts Options, progress func(Progress)) (Report, error) {
	start := time.Now()
	rep := Report{Version: reportVersion, OS: runtime.GOOS, Quick: opts.Quick, Runs: opts.runs(), Rows: opts.Labels(), Started: start.UTC()}
	if len(targets) == 0 {
		return rep, errNoTargets
	}
	if progress == nil {
		progress = func(Progress) {}
	}
	jobs := plan(rep.Rows)
	steps := len(jobs) * rep.Runs * len(targets)
	env := &runEnv{opts: opts, sz: opts.sizes(), runs: rep.Runs}
	step := 0
	for _, t := range targets {
		fsName, err := fsType(t.Dir)
		if err != nil {
			return rep, fmt.Errorf("benchmark %s: %w", t.Dir, err)
		}
		work, err := os.MkdirTemp(t.Dir, ramdisk.ScratchPrefix+"bench-")
		if err != nil {
			return rep, fmt.Errorf("benchmark %s: %w", t.Name, err)
		}
		tr := TargetReport{Target: t, FS: fsName}
		for _, j := range jobs {
			res, err := env.runJob(ctx, j, t, work, fsName, func(run int) {
				step++
				progress(Progress{Target: t.Name, Row: j.rows[0].ID, Label: j.label(), Run: run, Runs: rep.Runs, Step: step, Steps: steps, sizes: env.sz})
			})
			tr.Results = append(tr.Results, res...)
			if err != nil {
				os.RemoveAll(work)
				rep.Targets = append(rep.Targets, tr)
				return rep, err
			}
		}
		if err := os.RemoveAll(work); err != nil {
			return rep, fmt.Errorf("benchmark %s: clean up: %w", t.Name, err)
		}
		rep.Targets = append(rep.Targets, tr)
	}
	rep.Elapsed = time.Since(start).Seconds()
	return rep, nil
}

// summarize fills median, min and max from samples.
func summarize(r *Result) {
	if len(r.Samples) == 0 {
		return
	}
	s := append([]float64(nil), r.Samples...)
	sort.Float64s(s)
	r.Min, r.Max = s[0], s[len(s)-1]
	r.Median = median(s)
}

// median of sorted values.
func median(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
