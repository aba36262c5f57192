package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"rambar/internal/diskspace"
)

// job measures one or two rows together (a run of the sequential job writes a
// file then reads it; a run of the files job creates files then deletes them).
type job struct {
	ids  []RowID   // rows this job measures, in the order run returns them
	rows []RowInfo // the selected ones among ids
	// need is the free space one run takes on the target.
	need func(sizes) int64
	ops  func(sizes) int
	// skip says why the job cannot run here (nil when it can).
	skip func(e *runEnv, fsName string) *words
	// run does one run in dir and returns one sample per id.
	run func(ctx context.Context, e *runEnv, dir, fsName string, st *jobState) ([]float64, error)
}

// jobState carries a job's notes and counts across its runs.
type jobState struct {
	notes []*words
	syncs int64
}

func (j job) label() string { return j.rows[0].Label }

// runEnv is shared by the jobs of one Run.
type runEnv struct {
	opts    Options
	sz      sizes
	runs    int
	archive []byte // generated once, on first use
}

var allJobs = []job{
	{ids: []RowID{rowSeqWrite, rowSeqRead},
		need: func(s sizes) int64 { return s.seq + 16<<20 },
		ops:  func(s sizes) int { return int(s.seq / int64(s.block)) },
		run:  runSequential},
	{ids: []RowID{rowFsync},
		need: func(s sizes) int64 { return int64(s.fsyncs)*4096 + 1<<20 },
		ops:  func(s sizes) int { return s.fsyncs },
		run: func(ctx context.Context, e *runEnv, dir, _ string, st *jobState) ([]float64, error) {
			return runSyncWrites(ctx, e, dir, st, fsync)
		}},
	{ids: []RowID{rowFullFsync},
		need: func(s sizes) int64 { return int64(s.fsyncs)*4096 + 1<<20 },
		ops:  func(s sizes) int { return s.fsyncs },
		skip: func(*runEnv, string) *words {
			if !haveFullFsync {
				return wordsOf("n/a (F_FULLFSYNC is macOS only)")
			}
			return nil
		},
		run: func(ctx context.Context, e *runEnv, dir, _ string, st *jobState) ([]float64, error) {
			return runSyncWrites(ctx, e, dir, st, fullFsync)
		}},
	{ids: []RowID{rowSQLiteDefault},
		need: func(s sizes) int64 { return int64(s.inserts)*8192 + 4<<20 },
		ops:  func(s sizes) int { return s.inserts },
		skip: skipSQLite,
		run: func(ctx context.Context, e *runEnv, dir, _ string, st *jobState) ([]float64, error) {
			return runSQLite(ctx, e, dir, st, false)
		}},
	{ids: []RowID{rowSQLiteFull},
		need: func(s sizes) int64 { return int64(s.inserts)*8192 + 4<<20 },
		ops:  func(s sizes) int { return s.inserts },
		skip: skipSQLite,
		run: func(ctx context.Context, e *runEnv, dir, _ string, st *jobState) ([]float64, error) {
			return runSQLite(ctx, e, dir, st, true)
		}},
	{ids: []RowID{rowUntar},
		need: func(s sizes) int64 { return s.archiveBytes + int64(s.archiveFiles)*4096 + 4<<20 },
		ops:  func(s sizes) int { return s.archiveFiles },
		run:  runUntar},
	{ids: []RowID{rowCreateFiles, rowDeleteFiles},
		need: func(s sizes) int64 { return int64(s.smallFiles)*4096 + 4<<20 },
		ops:  func(s sizes) int { return s.smallFiles },
		run:  runFiles},
}

// plan returns the jobs that measure the selected rows.
func plan(rows []RowInfo) []job {
	var out []job
	for _, j := range allJobs {
		j.rows = nil
		for _, id := range j.ids {
			for _, r := range rows {
				if r.ID == id {
					j.rows = append(j.rows, r)
				}
			}
		}
		if len(j.rows) > 0 {
			out = append(out, j)
		}
	}
	return out
}

// runJob runs j e.runs times on target t (in work) and returns a Result per
// selected row. Only a cancelled context is returned as an error; other
// failures are recorded in the results.
func (e *runEnv) runJob(ctx context.Context, j job, t Target, work, fsName string, onRun func(int)) ([]Result, error) {
	res := make([]Result, len(j.rows))
	for i, r := range j.rows {
		res[i] = Result{Row: r.ID, Unit: r.Unit, Ops: j.ops(e.sz)}
	}
	setAll := func(f func(*Result)) {
		for i := range res {
			f(&res[i])
		}
	}
	if j.skip != nil {
		if why := j.skip(e, fsName); why != nil {
			setAll(func(r *Result) { r.skip(why) })
			for run := 1; run <= e.runs; run++ {
				onRun(run)
			}
			return res, nil
		}
	}
	st := &jobState{}
	for run := 1; run <= e.runs; run++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		onRun(run)
		need := j.need(e.sz)
		free, err := diskspace.Free(work)
		if err != nil {
			setAll(func(r *Result) { r.Err = err.Error() })
			return res, nil
		}
		if free < need {
			why := wordsOf("no room: needs %s, %s free on %s", bytesText(need), bytesText(free), t.Dir)
			setAll(func(r *Result) { r.skip(why); r.Samples = nil })
			return res, nil
		}
		dir, err := os.MkdirTemp(work, "run-")
		if err != nil {
			setAll(func(r *Result) { r.Err = err.Error() })
			return res, nil
		}
		samples, err := j.run(ctx, e, dir, fsName, st)
		rmErr := os.RemoveAll(dir)
		if err == nil {
			err = rmErr
		}
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			setAll(func(r *Result) { r.Err = err.Error(); r.Samples = nil })
			return res, nil
		}
		k := 0
		for i, id := range j.ids {
			if k < len(res) && res[k].Row == id {
				res[k].Samples = append(res[k].Samples, samples[i])
				k++
			}
		}
	}
	setAll(func(r *Result) {
		r.Note, r.notes = sayAll(tongue{}, st.notes), st.notes
		summarize(r)
	})
	// Only the sync rows count their syncs; the sequential job's one sync per
	// file is not the row's subject.
	for i := range res {
		if res[i].Row == rowFsync || res[i].Row == rowFullFsync {
			res[i].Syncs = st.syncs
		}
	}
	return res, nil
}

// alignedBuf returns n bytes aligned to 4096, as O_DIRECT wants, filled with
// bytes that do not compress (so a compressed disk cannot flatter itself).
func alignedBuf(n int) []byte {
	const align = 4096
	raw := make([]byte, n+align)
	off := 0
	if r := int(uintptrOf(raw) % align); r != 0 {
		off = align - r
	}
	b := raw[off : off+n]
	fillRandom(b, 1)
	return b
}

// fillRandom fills b with a deterministic xorshift stream.
func fillRandom(b []byte, seed uint64) {
	x := seed*0x9E3779B97F4A7C15 + 1
	for i := 0; i+8 <= len(b); i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		for k := 0; k < 8; k++ {
			b[i+k] = byte(x >> (8 * k))
		}
	}
}

// runSyncWrites appends e.sz.fsyncs 4 KB blocks, each followed by sync.
// Sample: µs per write+sync.
func runSyncWrites(ctx context.Context, e *runEnv, dir string, st *jobState, sync func(*os.File) error) ([]float64, error) {
	path := filepath.Join(dir, "sync.bin")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := alignedBuf(4096)
	n := e.sz.fsyncs
	t0 := time.Now()
	for i := 0; i < n; i++ {
		if i%32 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if _, err := f.Write(buf); err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		st.syncs++
		if err := sync(f); err != nil {
			return nil, fmt.Errorf("sync %s: %w", path, err)
		}
	}
	d := time.Since(t0)
	return []float64{float64(d.Microseconds()) / float64(n)}, nil
}

// runUntar extracts the generated archive into dir with archive/tar, the way
// tar -xf does (no syncs). Sample: seconds.
func runUntar(ctx context.Context, e *runEnv, dir, _ string, _ *jobState) ([]float64, error) {
	if e.archive == nil {
		e.archive = generateArchive(e.sz.archiveFiles, e.sz.archiveBytes)
	}
	t0 := time.Now()
	if _, err := extract(ctx, e.archive, dir); err != nil {
		return nil, err
	}
	return []float64{time.Since(t0).Seconds()}, nil
}

// runFiles creates e.sz.smallFiles files of 1 KB in one folder, then deletes
// them. Samples: create seconds, delete seconds.
func runFiles(ctx context.Context, e *runEnv, dir, _ string, _ *jobState) ([]float64, error) {
	buf := make([]byte, 1024)
	fillRandom(buf, 7)
	n := e.sz.smallFiles
	names := make([]string, n)
	for i := range names {
		names[i] = filepath.Join(dir, fmt.Sprintf("f%05d.txt", i))
	}
	t0 := time.Now()
	for i, p := range names {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			return nil, err
		}
	}
	c := time.Since(t0)
	t0 = time.Now()
	for i, p := range names {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := os.Remove(p); err != nil {
			return nil, err
		}
	}
	return []float64{c.Seconds(), time.Since(t0).Seconds()}, nil
}

// osName is the OS as the table says it.
func osName() string {
	switch runtime.GOOS {
	case "darwin":
		return "macOS"
	case "linux":
		return "Linux"
	}
	return runtime.GOOS
}
