package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"rambar/internal/diskspace"
	"rambar/ramdisk"
)

// Comparison is one row measured by RAMBar and by a standard tool on the
// same target, with the same sizes, run alternately so both see the same
// machine.
type Comparison struct {
	Target string `json:"target"`
	Row    RowID  `json:"row"`
	Tool   string `json:"tool"` // the tool's command line, for the reader
	Ours   Result `json:"ours"`
	Theirs Result `json:"theirs"`
	// Ratio is our median over theirs, the two figures the table shows
	// (runs alternate, so a busy moment on a shared machine hits both), 0
	// when either failed. Same unit: for MB/s above 1 means RAMBar measured
	// faster; for µs and s above 1 means RAMBar measured slower.
	Ratio float64 `json:"ratio"`
}

// Compare measures t's sequential, fsync and untar rows with RAMBar and with
// dd, fio and tar, alternating runs, and returns ratios of the medians. Tools
// that are not installed give a Comparison whose Theirs says so. With
// opts.Rows set, only those of the four rows are compared.
// Sequential rows are compared with dd (oflag=direct conv=fsync, iflag=direct,
// the same block size and file size); the fsync row with fio (--fsync=1, 4 KB
// blocks, the same count; its per-write latency is write + sync latency), or
// dd oflag=dsync when fio is missing; untar with tar -xf of the same archive,
// as a normal user runs it (--no-same-owner --no-same-permissions: root's tar
// would also chown and chmod every file, which extract does not).
func Compare(ctx context.Context, t Target, opts Options, progress func(string)) ([]Comparison, error) {
	if progress == nil {
		progress = func(string) {}
	}
	fsName, err := fsType(t.Dir)
	if err != nil {
		return nil, fmt.Errorf("compare %s: %w", t.Dir, err)
	}
	work, err := os.MkdirTemp(t.Dir, ramdisk.ScratchPrefix+"compare-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	c := newComparer(t, opts, fsName, work, progress)
	sz := c.e.sz
	if free, err := diskspace.Free(work); err == nil && free < sz.seq+sz.archiveBytes+64<<20 {
		return nil, fmt.Errorf("compare %s: no room: %d MB free", t.Name, free/1e6)
	}
	c.e.archive = generateArchive(sz.archiveFiles, sz.archiveBytes)
	if err := os.WriteFile(c.tarFile, c.e.archive, 0o644); err != nil {
		return nil, err
	}
	for run := 1; run <= c.e.runs; run++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := c.run(ctx, run); err != nil {
			return nil, err
		}
	}
	return c.results(), nil
}

// comparer holds one Compare's rows and tools.
type comparer struct {
	t                         Target
	opts                      Options
	fsName, work, tarFile     string
	e                         *runEnv
	progress                  func(string)
	dd, fio, tar              string
	ddDirect                  bool
	seqW, seqR, syncC, untarC *Comparison
}

func newComparer(t Target, opts Options, fsName, work string, progress func(string)) *comparer {
	e := &runEnv{opts: opts, sz: opts.sizes(), runs: opts.runs()}
	sz := e.sz
	c := &comparer{t: t, opts: opts, fsName: fsName, work: work, tarFile: filepath.Join(work, "archive.tar"), e: e, progress: progress,
		dd: lookTool("dd"), fio: lookTool("fio"), tar: lookTool("tar"), ddDirect: true}
	mk := func(row RowID, unit Unit, tool string) *Comparison {
		return &Comparison{Target: t.Name, Row: row, Tool: tool, Ours: Result{Row: row, Unit: unit}, Theirs: Result{Row: row, Unit: unit}}
	}
	c.seqW = mk(rowSeqWrite, MBps, fmt.Sprintf("dd bs=%d count=%d oflag=direct conv=fsync", sz.block, sz.seq/int64(sz.block)))
	c.seqR = mk(rowSeqRead, MBps, fmt.Sprintf("dd bs=%d iflag=direct", sz.block))
	c.syncC = mk(rowFsync, Micros, fmt.Sprintf("fio --rw=write --bs=4k --size=%dk --fsync=1 --ioengine=sync", sz.fsyncs*4))
	if c.fio == "" {
		c.syncC.Tool = fmt.Sprintf("dd bs=4k count=%d oflag=dsync (fio not installed)", sz.fsyncs)
	}
	c.untarC = mk(rowUntar, Secs, "tar --no-same-owner --no-same-permissions -xf")
	return c
}

// want reports whether one of ids was asked for (all when opts.Rows is empty).
func (c *comparer) want(ids ...RowID) bool {
	if len(c.opts.Rows) == 0 {
		return true
	}
	for _, id := range ids {
		if slices.Contains(c.opts.Rows, id) {
			return true
		}
	}
	return false
}

// run measures one run of every row asked for, RAMBar then the tool, in a
// fresh folder removed afterwards.
func (c *comparer) run(ctx context.Context, run int) error {
	dir, err := os.MkdirTemp(c.work, "run-")
	if err != nil {
		return err
	}
	st := &jobState{}
	if c.want(rowSeqWrite, rowSeqRead) {
		c.progress(fmt.Sprintf("%s: sequential, RAMBar then dd (run %d of %d)", c.t.Name, run, c.e.runs))
		c.sequential(ctx, dir, st)
	}
	if c.want(rowFsync) {
		c.progress(fmt.Sprintf("%s: 4 KiB write + fsync, RAMBar then %s (run %d of %d)", c.t.Name, strings.Fields(c.syncC.Tool)[0], run, c.e.runs))
		c.syncWrites(ctx, dir, st)
	}
	if c.want(rowUntar) {
		c.progress(fmt.Sprintf("%s: untar, RAMBar then tar (run %d of %d)", c.t.Name, run, c.e.runs))
		c.untar(ctx, dir, st)
	}
	return os.RemoveAll(dir)
}

func (c *comparer) sequential(ctx context.Context, dir string, st *jobState) {
	if s, err := runSequential(ctx, c.e, dir, c.fsName, st); err == nil {
		c.seqW.Ours.Samples = append(c.seqW.Ours.Samples, s[0])
		c.seqR.Ours.Samples = append(c.seqR.Ours.Samples, s[1])
		c.seqW.Ours.Note = st.note
	} else {
		c.seqW.Ours.Err, c.seqR.Ours.Err = err.Error(), err.Error()
	}
	if c.dd == "" {
		c.seqW.Theirs.Skipped, c.seqR.Theirs.Skipped = "dd not installed", "dd not installed"
		return
	}
	f := filepath.Join(dir, "dd.bin")
	w, err := ddRate(ctx, c.dd, ddWriteArgs(f, c.e.sz, c.ddDirect)...)
	if err != nil && c.ddDirect {
		// The file system refused direct I/O; measure cached, as RAMBar does.
		c.ddDirect = false
		w, err = ddRate(ctx, c.dd, ddWriteArgs(f, c.e.sz, false)...)
	}
	record(&c.seqW.Theirs, w, err)
	if !c.ddDirect {
		dropCache(f)
	}
	r, err := ddRate(ctx, c.dd, ddReadArgs(f, c.e.sz, c.ddDirect)...)
	record(&c.seqR.Theirs, r, err)
	os.Remove(f)
}

func (c *comparer) syncWrites(ctx context.Context, dir string, st *jobState) {
	if s, err := runSyncWrites(ctx, c.e, dir, st, fsync); err == nil {
		c.syncC.Ours.Samples = append(c.syncC.Ours.Samples, s[0])
	} else {
		c.syncC.Ours.Err = err.Error()
	}
	n := c.e.sz.fsyncs
	switch {
	case c.fio != "":
		v, err := fioSyncLatency(ctx, c.fio, filepath.Join(dir, "fio.bin"), n)
		record(&c.syncC.Theirs, v, err)
	case c.dd != "":
		f := filepath.Join(dir, "dsync.bin")
		t0 := time.Now()
		_, err := ddRate(ctx, c.dd, "if=/dev/zero", "of="+f, "bs=4096", fmt.Sprintf("count=%d", n), "oflag=dsync")
		record(&c.syncC.Theirs, float64(time.Since(t0).Microseconds())/float64(n), err)
	default:
		c.syncC.Theirs.Skipped = "neither fio nor dd installed"
	}
}

func (c *comparer) untar(ctx context.Context, dir string, st *jobState) {
	if s, err := runUntar(ctx, c.e, dir, c.fsName, st); err == nil {
		c.untarC.Ours.Samples = append(c.untarC.Ours.Samples, s[0])
	} else {
		c.untarC.Ours.Err = err.Error()
	}
	if c.tar == "" {
		c.untarC.Theirs.Skipped = "tar not installed"
		return
	}
	out := filepath.Join(dir, "tar-out")
	os.Mkdir(out, 0o755)
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, c.tar, tarArgs(c.tarFile, out)...)
	cmd.Env = toolEnv()
	b, err := cmd.CombinedOutput()
	if err != nil {
		err = fmt.Errorf("tar -xf: %w: %s", err, strings.TrimSpace(string(b)))
	}
	record(&c.untarC.Theirs, time.Since(t0).Seconds(), err)
}

// results summarizes the rows asked for and the median of the paired ratios.
func (c *comparer) results() []Comparison {
	if !c.ddDirect {
		c.seqW.Tool = strings.Replace(c.seqW.Tool, " oflag=direct", "", 1) + " (direct I/O refused)"
		c.seqR.Tool = strings.Replace(c.seqR.Tool, " iflag=direct", "", 1) + " (direct I/O refused)"
	}
	var out []Comparison
	for _, x := range []*Comparison{c.seqW, c.seqR, c.syncC, c.untarC} {
		if c.want(x.Row) {
			out = append(out, *x)
		}
	}
	for i := range out {
		x := &out[i]
		summarize(&x.Ours)
		summarize(&x.Theirs)
		if x.Ours.OK() && x.Theirs.OK() && x.Theirs.Median > 0 {
			// The two medians shown, one over the other.
			x.Ratio = x.Ours.Median / x.Theirs.Median
		}
	}
	return out
}

func record(r *Result, v float64, err error) {
	if err != nil {
		r.Err = err.Error()
		return
	}
	r.Samples = append(r.Samples, v)
}

// ddWriteArgs is dd's side of the sequential write: the same block size and
// count as RAMBar's, flushed at the end (conv=fsync), direct I/O when the file
// system allows it. The honesty test runs the same argv under strace.
func ddWriteArgs(file string, sz sizes, direct bool) []string {
	args := []string{"if=/dev/zero", "of=" + file, fmt.Sprintf("bs=%d", sz.block), fmt.Sprintf("count=%d", sz.seq/int64(sz.block)), "conv=fsync"}
	if direct {
		args = append(args, "oflag=direct")
	}
	return args
}

// ddReadArgs is dd's side of the sequential read of the file written.
func ddReadArgs(file string, sz sizes, direct bool) []string {
	return []string{"if=" + file, "of=/dev/null", fmt.Sprintf("bs=%d", sz.block), ddFlag("iflag", direct)}
}

// tarArgs extracts archive into dir as a normal user does (root's tar would
// also chown and chmod every file, which extract does not).
func tarArgs(archive, dir string) []string {
	return []string{"--no-same-owner", "--no-same-permissions", "-xf", archive, "-C", dir}
}

func ddFlag(name string, direct bool) string {
	if direct {
		return name + "=direct"
	}
	return name + "=fullblock"
}

var ddCopied = regexp.MustCompile(`(?m)^(\d+) bytes .*copied, ([0-9.]+) s`)

// ddRate runs dd with args and returns the MB/s it reports (bytes / its own
// elapsed seconds).
func ddRate(ctx context.Context, dd string, args ...string) (float64, error) {
	cmd := exec.CommandContext(ctx, dd, args...)
	cmd.Env = toolEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("dd %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	m := ddCopied.FindStringSubmatch(stderr.String())
	if m == nil {
		return 0, fmt.Errorf("dd %s: unexpected output %q", strings.Join(args, " "), stderr.String())
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	s, _ := strconv.ParseFloat(m[2], 64)
	if s <= 0 {
		return 0, fmt.Errorf("dd: elapsed time 0")
	}
	return n / 1e6 / s, nil
}

// fioSyncLatency runs fio writing count 4 KB blocks with an fsync after each
// and returns the mean µs of write + fsync.
func fioSyncLatency(ctx context.Context, fio, file string, count int) (float64, error) {
	args := []string{"--name=rambar-fsync", "--filename=" + file, "--rw=write", "--bs=4k",
		fmt.Sprintf("--size=%dk", count*4), "--fsync=1", "--ioengine=sync", "--output-format=json"}
	cmd := exec.CommandContext(ctx, fio, args...)
	cmd.Env = toolEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	defer os.Remove(file)
	if err != nil {
		return 0, fmt.Errorf("fio: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	// fio may print notes before the JSON document.
	if i := bytes.IndexByte(out, '{'); i > 0 {
		out = out[i:]
	}
	var doc struct {
		Jobs []struct {
			Write struct {
				TotalIOs int `json:"total_ios"`
				Lat      struct {
					Mean float64 `json:"mean"`
				} `json:"lat_ns"`
			} `json:"write"`
			Sync struct {
				TotalIOs int `json:"total_ios"`
				Lat      struct {
					Mean float64 `json:"mean"`
				} `json:"lat_ns"`
			} `json:"sync"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return 0, fmt.Errorf("fio: read JSON: %w", err)
	}
	if len(doc.Jobs) == 0 || doc.Jobs[0].Write.TotalIOs != count || doc.Jobs[0].Sync.TotalIOs < count-1 {
		return 0, fmt.Errorf("fio: unexpected counts in its report")
	}
	j := doc.Jobs[0]
	return (j.Write.Lat.Mean + j.Sync.Lat.Mean) / 1000, nil
}

// ComparisonTable prints comparisons with the ratio of our median to the
// tool's.
func ComparisonTable(cs []Comparison) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "Target\tRow\tRAMBar\tTool\tTool's figure\tRAMBar/tool")
	for _, c := range cs {
		ratio := "-"
		if c.Ratio > 0 {
			ratio = fmt.Sprintf("%.2f", c.Ratio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Target, c.Row, c.Ours.Cell(), c.Tool, c.Theirs.Cell(), ratio)
	}
	tw.Flush()
	return b.String()
}
