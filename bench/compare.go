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
// would also chown and chmod every file, which Extract does not).
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
	e := &runEnv{opts: opts, sz: opts.sizes(), runs: opts.runs()}
	sz := e.sz
	if free, err := freeSpace(work); err == nil && free < sz.seq+sz.archiveBytes+64<<20 {
		return nil, fmt.Errorf("compare %s: no room: %d MB free", t.Name, free/1e6)
	}
	blocks := sz.seq / int64(sz.block)
	mk := func(row RowID, unit Unit, tool string) *Comparison {
		return &Comparison{Target: t.Name, Row: row, Tool: tool, Ours: Result{Row: row, Unit: unit}, Theirs: Result{Row: row, Unit: unit}}
	}
	dd := lookTool("dd")
	fio := lookTool("fio")
	tarTool := lookTool("tar")
	seqW := mk(SeqWrite, MBps, fmt.Sprintf("dd bs=%d count=%d oflag=direct conv=fsync", sz.block, blocks))
	seqR := mk(SeqRead, MBps, fmt.Sprintf("dd bs=%d iflag=direct", sz.block))
	syncC := mk(Fsync, Micros, fmt.Sprintf("fio --rw=write --bs=4k --size=%dk --fsync=1 --ioengine=sync", sz.fsyncs*4))
	if fio == "" {
		syncC.Tool = fmt.Sprintf("dd bs=4k count=%d oflag=dsync (fio not installed)", sz.fsyncs)
	}
	untar := mk(Untar, Secs, "tar --no-same-owner --no-same-permissions -xf")
	archive := GenerateArchive(sz.archiveFiles, sz.archiveBytes)
	e.archive = archive
	tarFile := filepath.Join(work, "archive.tar")
	if err := os.WriteFile(tarFile, archive, 0o644); err != nil {
		return nil, err
	}
	want := func(ids ...RowID) bool {
		if len(opts.Rows) == 0 {
			return true
		}
		for _, id := range ids {
			if slices.Contains(opts.Rows, id) {
				return true
			}
		}
		return false
	}
	ddDirect := true
	for run := 1; run <= e.runs; run++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp(work, "run-")
		if err != nil {
			return nil, err
		}
		st := &jobState{}
		if want(SeqWrite, SeqRead) {
			progress(fmt.Sprintf("%s: sequential, RAMBar then dd (run %d of %d)", t.Name, run, e.runs))
			if s, err := runSequential(ctx, e, dir, fsName, st); err == nil {
				seqW.Ours.Samples = append(seqW.Ours.Samples, s[0])
				seqR.Ours.Samples = append(seqR.Ours.Samples, s[1])
				seqW.Ours.Note = st.note
			} else {
				seqW.Ours.Err, seqR.Ours.Err = err.Error(), err.Error()
			}
			if dd == "" {
				seqW.Theirs.Skipped, seqR.Theirs.Skipped = "dd not installed", "dd not installed"
			} else {
				f := filepath.Join(dir, "dd.bin")
				w, err := ddRate(ctx, dd, "if=/dev/zero", "of="+f, fmt.Sprintf("bs=%d", sz.block), fmt.Sprintf("count=%d", blocks), "conv=fsync", ddFlag("oflag", ddDirect))
				if err != nil && ddDirect {
					// The file system refused direct I/O; measure cached, as RAMBar does.
					ddDirect = false
					w, err = ddRate(ctx, dd, "if=/dev/zero", "of="+f, fmt.Sprintf("bs=%d", sz.block), fmt.Sprintf("count=%d", blocks), "conv=fsync")
				}
				record(&seqW.Theirs, w, err)
				if !ddDirect {
					dropCache(f)
				}
				r, err := ddRate(ctx, dd, "if="+f, "of=/dev/null", fmt.Sprintf("bs=%d", sz.block), ddFlag("iflag", ddDirect))
				record(&seqR.Theirs, r, err)
				os.Remove(f)
			}
		}
		if want(Fsync) {
			progress(fmt.Sprintf("%s: 4 KiB write + fsync, RAMBar then %s (run %d of %d)", t.Name, strings.Fields(syncC.Tool)[0], run, e.runs))
			if s, err := runSyncWrites(ctx, e, dir, st, fsync); err == nil {
				syncC.Ours.Samples = append(syncC.Ours.Samples, s[0])
			} else {
				syncC.Ours.Err = err.Error()
			}
			switch {
			case fio != "":
				v, err := fioSyncLatency(ctx, fio, filepath.Join(dir, "fio.bin"), sz.fsyncs)
				record(&syncC.Theirs, v, err)
			case dd != "":
				f := filepath.Join(dir, "dsync.bin")
				t0 := time.Now()
				_, err := ddRate(ctx, dd, "if=/dev/zero", "of="+f, "bs=4096", fmt.Sprintf("count=%d", sz.fsyncs), "oflag=dsync")
				record(&syncC.Theirs, float64(time.Since(t0).Microseconds())/float64(sz.fsyncs), err)
			default:
				syncC.Theirs.Skipped = "neither fio nor dd installed"
			}
		}
		if want(Untar) {
			progress(fmt.Sprintf("%s: untar, RAMBar then tar (run %d of %d)", t.Name, run, e.runs))
			if s, err := runUntar(ctx, e, filepath.Join(dir), fsName, st); err == nil {
				untar.Ours.Samples = append(untar.Ours.Samples, s[0])
			} else {
				untar.Ours.Err = err.Error()
			}
			if tarTool == "" {
				untar.Theirs.Skipped = "tar not installed"
			} else {
				out := filepath.Join(dir, "tar-out")
				os.Mkdir(out, 0o755)
				t0 := time.Now()
				cmd := exec.CommandContext(ctx, tarTool, "--no-same-owner", "--no-same-permissions", "-xf", tarFile, "-C", out)
				cmd.Env = toolEnv()
				b, err := cmd.CombinedOutput()
				if err != nil {
					err = fmt.Errorf("tar -xf: %w: %s", err, strings.TrimSpace(string(b)))
				}
				record(&untar.Theirs, time.Since(t0).Seconds(), err)
			}
		}
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
	}
	if !ddDirect {
		seqW.Tool = strings.Replace(seqW.Tool, " oflag=direct", "", 1) + " (direct I/O refused)"
		seqR.Tool = strings.Replace(seqR.Tool, " iflag=direct", "", 1) + " (direct I/O refused)"
	}
	var out []Comparison
	for _, c := range []*Comparison{seqW, seqR, syncC, untar} {
		if want(c.Row) {
			out = append(out, *c)
		}
	}
	for i := range out {
		c := &out[i]
		summarize(&c.Ours)
		summarize(&c.Theirs)
		if c.Ours.OK() && c.Theirs.OK() && c.Theirs.Median > 0 {
			c.Ratio = c.Ours.Median / c.Theirs.Median
		}
	}
	return out, nil
}

func record(r *Result, v float64, err error) {
	if err != nil {
		r.Err = err.Error()
		return
	}
	r.Samples = append(r.Samples, v)
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
