package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// The standard tools' side of each comparison: their argv, which the
// honesty test (TestCompareDoesTheToolsWork) runs under strace beside
// RAMBar's own rows, and the figures read from their reports.

// fioWriteArgs is fio's side of the sequential write, the job a user runs to
// check RAMBar's figure: the same block size and file size, direct I/O when
// the file system allows it, flushed at the end. fio lays the file out
// (fallocate) before its clock starts, and so does RAMBar (layOut).
func fioWriteArgs(file string, sz sizes, direct bool) []string {
	d := "--direct=0"
	if direct {
		d = "--direct=1"
	}
	return []string{"--name=rambar-seq", "--filename=" + file, "--rw=write", fmt.Sprintf("--bs=%d", sz.block),
		fmt.Sprintf("--size=%d", sz.seq), d, "--end_fsync=1", "--ioengine=sync", "--output-format=json"}
}

// ddWriteArgs is dd's side of the sequential write when fio is missing: the
// same block size and count as RAMBar's, into the file layOutFile laid out
// (conv=notrunc keeps it), flushed at the end (conv=fsync), direct I/O when
// the file system allows it.
func ddWriteArgs(file string, sz sizes, direct bool) []string {
	args := []string{"if=/dev/zero", "of=" + file, fmt.Sprintf("bs=%d", sz.block), fmt.Sprintf("count=%d", sz.seq/int64(sz.block)), "conv=notrunc,fsync"}
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

// layOutFile creates file with size bytes laid out, as fio and RAMBar's own
// sequential write lay theirs out before timing, for dd to write into.
func layOutFile(file string, size int64) error {
	f, err := os.OpenFile(file, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := layOut(f, size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var ddCopied = regexp.MustCompile(`(?m)^(\d+) bytes .*copied, ([0-9.]+) s`)

// ddRate runs dd with args and returns the MiB/s of its report (the bytes
// over its own elapsed seconds; dd's own rate is in decimal MB/s).
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
	return n / (1 << 20) / s, nil
}

// fioJob is the part of fio's JSON report the comparisons read.
type fioJob struct {
	Write struct {
		IOBytes  int64   `json:"io_bytes"`
		BW       float64 `json:"bw_bytes"` // bytes per second over fio's runtime
		TotalIOs int     `json:"total_ios"`
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
}

// runFio runs fio with args (which ask for --output-format=json) and returns
// its one job's report.
func runFio(ctx context.Context, fio string, args []string) (fioJob, error) {
	cmd := exec.CommandContext(ctx, fio, args...)
	cmd.Env = toolEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fioJob{}, fmt.Errorf("fio: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	// fio may print notes before the JSON document.
	if i := bytes.IndexByte(out, '{'); i > 0 {
		out = out[i:]
	}
	var doc struct {
		Jobs []fioJob `json:"jobs"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return fioJob{}, fmt.Errorf("fio: read JSON: %w", err)
	}
	if len(doc.Jobs) != 1 {
		return fioJob{}, fmt.Errorf("fio: %d jobs in its report, want 1", len(doc.Jobs))
	}
	return doc.Jobs[0], nil
}

// fioSeqWrite runs fioWriteArgs and returns the MiB/s fio reports, after
// checking that it wrote the same blocks as RAMBar.
func fioSeqWrite(ctx context.Context, fio, file string, sz sizes, direct bool) (float64, error) {
	j, err := runFio(ctx, fio, fioWriteArgs(file, sz, direct))
	if err != nil {
		return 0, err
	}
	if j.Write.IOBytes != sz.seq || j.Write.TotalIOs != int(sz.seq/int64(sz.block)) || j.Write.BW <= 0 {
		return 0, fmt.Errorf("fio: wrote %d bytes in %d writes, want %d in %d", j.Write.IOBytes, j.Write.TotalIOs, sz.seq, sz.seq/int64(sz.block))
	}
	return j.Write.BW / (1 << 20), nil
}

// fioSyncLatency runs fio writing count 4 KiB blocks with an fsync after
// each and returns the mean µs of write + fsync.
func fioSyncLatency(ctx context.Context, fio, file string, count int) (float64, error) {
	args := []string{"--name=rambar-fsync", "--filename=" + file, "--rw=write", "--bs=4k",
		fmt.Sprintf("--size=%dk", count*4), "--fsync=1", "--ioengine=sync", "--output-format=json"}
	defer os.Remove(file)
	j, err := runFio(ctx, fio, args)
	if err != nil {
		return 0, err
	}
	if j.Write.TotalIOs != count || j.Sync.TotalIOs < count-1 {
		return 0, fmt.Errorf("fio: unexpected counts in its report")
	}
	return (j.Write.Lat.Mean + j.Sync.Lat.Mean) / 1000, nil
}
