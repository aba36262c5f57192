package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"rambar/i18n"
	"rambar/internal/diskspace"
	"rambar/internal/textwidth"
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
	// when either failed. Same unit: for MiB/s above 1 means RAMBar measured
	// faster; for µs and s above 1 means RAMBar measured slower.
	Ratio float64 `json:"ratio"`
}

// Compare measures t's sequential, fsync and untar rows with RAMBar and with
// dd, fio and tar, alternating runs, and returns ratios of the medians. Tools
// that are not installed give a Comparison whose Theirs says so. With
// opts.Rows set, only those of the four rows are compared.
// The sequential write is compared with fio (--rw=write --direct=1
// --end_fsync=1, the same block size and file size: the job a user runs to
// check the figure; fio lays its file out before timing, as RAMBar does), or
// with dd into a file laid out the same way when fio is missing; the
// sequential read with dd (iflag=direct, the same block size); the fsync row
// with fio (--fsync=1, 4 KiB blocks, the same count; its per-write latency
// is write + sync latency), or dd oflag=dsync when fio is missing; untar
// with tar -xf of the same archive, as a normal user runs it
// (--no-same-owner --no-same-permissions: root's tar would also chown and
// chmod every file, which extract does not).
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
		return nil, fmt.Errorf("compare %s: no room: %s free", t.Name, bytesText(free))
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
	say                       tongue // the progress lines' language
	opts                      Options
	fsName, work, tarFile     string
	e                         *runEnv
	progress                  func(string)
	dd, fio, tar              string
	direct                    bool // the tools may bypass the cache (until the file system refuses)
	seqW, seqR, syncC, untarC *Comparison
}

func newComparer(t Target, opts Options, fsName, work string, progress func(string)) *comparer {
	e := &runEnv{opts: opts, sz: opts.sizes(), runs: opts.runs()}
	sz := e.sz
	c := &comparer{t: t, say: tongue{opts.Speaker}, opts: opts, fsName: fsName, work: work, tarFile: filepath.Join(work, "archive.tar"), e: e, progress: progress,
		dd: lookTool("dd"), fio: lookTool("fio"), tar: lookTool("tar"), direct: true}
	mk := func(row RowID, unit Unit, tool string) *Comparison {
		return &Comparison{Target: t.Name, Row: row, Tool: tool, Ours: Result{Row: row, Unit: unit}, Theirs: Result{Row: row, Unit: unit}}
	}
	c.seqW = mk(rowSeqWrite, MiBps, fmt.Sprintf("fio --rw=write --bs=%d --size=%d --direct=1 --end_fsync=1 --ioengine=sync", sz.block, sz.seq))
	if c.fio == "" {
		c.seqW.Tool = fmt.Sprintf("dd bs=%d count=%d oflag=direct conv=notrunc,fsync into a file laid out first (fio not installed)", sz.block, sz.seq/int64(sz.block))
	}
	c.seqR = mk(rowSeqRead, MiBps, fmt.Sprintf("dd bs=%d iflag=direct", sz.block))
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
		c.progress(c.say.T("%s: sequential, RAMBar then %s (run %d of %d)", c.say.name(c.t.Name), strings.Fields(c.seqW.Tool)[0], run, c.e.runs))
		c.sequential(ctx, dir, st)
	}
	if c.want(rowFsync) {
		c.progress(c.say.T("%s: 4 KiB write + fsync, RAMBar then %s (run %d of %d)", c.say.name(c.t.Name), strings.Fields(c.syncC.Tool)[0], run, c.e.runs))
		c.syncWrites(ctx, dir, st)
	}
	if c.want(rowUntar) {
		c.progress(c.say.T("%s: untar, RAMBar then tar (run %d of %d)", c.say.name(c.t.Name), run, c.e.runs))
		c.untar(ctx, dir, st)
	}
	return os.RemoveAll(dir)
}

// sequential runs RAMBar's sequential rows, then the tools': fio's write
// (dd's when fio is missing) and dd's read of the file it wrote.
func (c *comparer) sequential(ctx context.Context, dir string, st *jobState) {
	if s, err := runSequential(ctx, c.e, dir, c.fsName, st); err == nil {
		c.seqW.Ours.Samples = append(c.seqW.Ours.Samples, s[0])
		c.seqR.Ours.Samples = append(c.seqR.Ours.Samples, s[1])
		c.seqW.Ours.Note, c.seqW.Ours.notes = sayAll(tongue{}, st.notes), st.notes
	} else {
		c.seqW.Ours.Err, c.seqR.Ours.Err = err.Error(), err.Error()
	}
	// The tool gets the room and memory RAMBar had: Compare checked for one
	// sequential file, not two.
	os.Remove(filepath.Join(dir, seqFile))
	if c.fio == "" && c.dd == "" {
		c.seqW.Theirs.skip(wordsOf("neither fio nor dd installed"))
		c.seqR.Theirs.skip(wordsOf("dd not installed"))
		return
	}
	f := filepath.Join(dir, "tool.bin")
	defer os.Remove(f)
	w, err := c.toolWrite(ctx, f, c.direct)
	if err != nil && c.direct {
		// The file system refused direct I/O; measure cached, as RAMBar does.
		c.direct = false
		os.Remove(f)
		w, err = c.toolWrite(ctx, f, false)
	}
	record(&c.seqW.Theirs, w, err)
	if c.dd == "" {
		c.seqR.Theirs.skip(wordsOf("dd not installed"))
		return
	}
	if !c.direct {
		dropCache(f)
	}
	r, err := ddRate(ctx, c.dd, ddReadArgs(f, c.e.sz, c.direct)...)
	record(&c.seqR.Theirs, r, err)
}

// toolWrite is the tool's sequential write into file: fio's job, or dd into
// a file laid out first as fio's and RAMBar's are. It returns MiB/s.
func (c *comparer) toolWrite(ctx context.Context, file string, direct bool) (float64, error) {
	if c.fio != "" {
		return fioSeqWrite(ctx, c.fio, file, c.e.sz, direct)
	}
	if err := layOutFile(file, c.e.sz.seq); err != nil {
		return 0, err
	}
	return ddRate(ctx, c.dd, ddWriteArgs(file, c.e.sz, direct)...)
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
		c.syncC.Theirs.skip(wordsOf("neither fio nor dd installed"))
	}
}

func (c *comparer) untar(ctx context.Context, dir string, st *jobState) {
	if s, err := runUntar(ctx, c.e, dir, c.fsName, st); err == nil {
		c.untarC.Ours.Samples = append(c.untarC.Ours.Samples, s[0])
	} else {
		c.untarC.Ours.Err = err.Error()
	}
	if c.tar == "" {
		c.untarC.Theirs.skip(wordsOf("tar not installed"))
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
	if !c.direct {
		c.seqW.Tool = strings.NewReplacer(" oflag=direct", "", " --direct=1", " --direct=0").Replace(c.seqW.Tool) + " (direct I/O refused)"
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

// ComparisonTable prints comparisons with the ratio of our median to the
// tool's.
func ComparisonTable(cs []Comparison) string { return ComparisonTableIn(cs, nil) }

// ComparisonTableIn is ComparisonTable in sp's language (nil: English, as
// ComparisonTable); the tools' command lines are as they are typed.
func ComparisonTableIn(cs []Comparison, sp i18n.Speaker) string {
	t := tongue{sp}
	var b strings.Builder
	tw := textwidth.NewColumns(&b)
	fmt.Fprintln(tw, strings.Join([]string{t.T("Target"), t.T("Row"), "RAMBar", t.T("Tool"), t.T("Tool's figure"), t.T("RAMBar/tool")}, "\t"))
	for _, c := range cs {
		ratio := "-"
		if c.Ratio > 0 {
			ratio = t.T("%.2f", c.Ratio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.name(c.Target), c.Row, c.Ours.cellIn(t), c.Tool, c.Theirs.cellIn(t), ratio)
	}
	tw.Flush()
	return b.String()
}
