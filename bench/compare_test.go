package bench

import (
	"archive/tar"
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestCompareDoesTheToolsWork checks that each comparison puts the same work
// on both sides, by counting what the kernel sees under strace -ff, not by
// timing (the timed ratios are the benchmark's own output: make
// bench-storage prints them):
//
//   - sequential write: RAMBar writes seq/block blocks and flushes the file
//     (TestSequentialWriteDoesFiosWork sets it beside fio's and dd's);
//   - sequential read: RAMBar and `dd` (ddReadArgs, the argv Compare runs)
//     each make exactly seq/block reads of one block;
//   - untar of the same archive: RAMBar and `tar` (tarArgs) each create one
//     file per archive member, write the same bytes, set the times of the
//     same number of files and folders, and neither changes owners (tar run as root would, without
//     --no-same-owner).
func TestCompareDoesTheToolsWork(t *testing.T) {
	strace, dd, tarTool := lookTool("strace"), lookTool("dd"), lookTool("tar")
	if strace == "" || dd == "" || tarTool == "" {
		t.Fatal("strace, dd and tar are needed for this test (apt-get install strace)")
	}
	sz := quickSizes
	blocks := int(sz.seq / int64(sz.block))
	dir := diskDir(t)

	ours := traceChild(t, strace, dir, rowSeqWrite, rowUntar)
	if got := ours.sized("write", sz.block); got != blocks {
		t.Errorf("RAMBar's sequential write: %d writes of %d bytes, want %d", got, sz.block, blocks)
	}
	if got := ours.sized("read", sz.block); got != blocks {
		t.Errorf("RAMBar's sequential read: %d reads of %d bytes, want %d", got, sz.block, blocks)
	}
	if ours.calls["fsync"]+ours.calls["fdatasync"] == 0 {
		t.Errorf("RAMBar's sequential write did not flush the file: %v", ours.calls)
	}

	f := filepath.Join(dir, "dd.bin")
	// Compare falls back to cached I/O where the file system refuses direct.
	direct := directHere(t, dir)
	if err := layOutFile(f, sz.seq); err != nil {
		t.Fatal(err)
	}
	w := traceTool(t, strace, dd, ddWriteArgs(f, sz, direct)...)
	r := traceTool(t, strace, dd, ddReadArgs(f, sz, direct)...)
	if got := r.sized("read", sz.block); got != blocks {
		t.Errorf("dd %v: %d reads of %d bytes, want %d", ddReadArgs(f, sz, direct), got, sz.block, blocks)
	}

	archive := generateArchive(sz.archiveFiles, sz.archiveBytes)
	tarFile := filepath.Join(t.TempDir(), "archive.tar")
	if err := os.WriteFile(tarFile, archive, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tar-out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	theirs := traceTool(t, strace, tarTool, tarArgs(tarFile, out)...)
	files, content := archiveStats(t, archive)
	for _, side := range []struct {
		name  string
		tr    trace
		other int // files created besides the archive's
	}{{"RAMBar", ours, 1}, {"tar", theirs, 0}} { // RAMBar's child also wrote seq.bin
		if side.tr.creates-side.other != files {
			t.Errorf("%s's untar created %d files, the archive holds %d", side.name, side.tr.creates-side.other, files)
		}
		if side.tr.calls["utimensat"] < files {
			t.Errorf("%s's untar set the time %d times for %d files", side.name, side.tr.calls["utimensat"], files)
		}
		if n := side.tr.calls["fchown"] + side.tr.calls["fchownat"] + side.tr.calls["chown"] + side.tr.calls["lchown"]; n != 0 {
			t.Errorf("%s's untar changed owners %d times", side.name, n)
		}
	}
	if ours.calls["utimensat"] != theirs.calls["utimensat"] {
		t.Errorf("RAMBar set times %d times, tar %d", ours.calls["utimensat"], theirs.calls["utimensat"])
	}
	// RAMBar's child also wrote the sequential file; tar wrote only the files.
	if got := theirs.written; got < content || got > content+64<<10 {
		t.Errorf("tar wrote %d bytes for %d bytes of file contents", got, content)
	}
	if got := ours.written - int64(blocks*sz.block); got < content || got > content+64<<10 {
		t.Errorf("RAMBar's untar wrote %d bytes for %d bytes of file contents", got, content)
	}
	t.Logf("RAMBar: %v, %d files created; dd: %v / %v; tar: %v, %d files created", ours.calls, ours.creates, w.calls, r.calls, theirs.calls, theirs.creates)
}

// TestSequentialWriteDoesFiosWork checks, under strace, that RAMBar's
// sequential write does the work of the job a user checks it with (fio
// --rw=write --direct=1 --end_fsync=1, fioWriteArgs) and of dd, Compare's
// stand-in when fio is missing (ddWriteArgs into layOutFile's file), on a
// tmpfs and on a disk folder: seq/block writes of one block, a flush, the
// same cache bypass, and the whole file laid out (fallocated) before the
// timed writes wherever the file system allows it, as fio lays out its file
// before its clock starts. RAMBar's file used to be fresh: on tmpfs each of
// its timed writes also took new pages, which fio's did not, and fio's
// figure came out 1.5-2× RAMBar's for the same 64 MiB in 1 MiB blocks.
func TestSequentialWriteDoesFiosWork(t *testing.T) {
	strace, fio, dd := lookTool("strace"), lookTool("fio"), lookTool("dd")
	if strace == "" || fio == "" || dd == "" {
		t.Fatal("strace, fio and dd are needed for this test (apt-get install strace fio)")
	}
	sz := quickSizes
	blocks := int(sz.seq / int64(sz.block))
	for _, where := range []struct{ name, dir string }{{"tmpfs", mountTmpfs(t, "256m")}, {"disk", diskDir(t)}} {
		direct, laid := directHere(t, where.dir), layOutHere(t, where.dir)
		want := int64(0)
		if laid {
			want = sz.seq
		}
		for _, w := range []struct {
			name string
			// run traces the writer; pre is what was laid out before it started.
			run func(file string) (tr trace, pre int64)
		}{
			{"RAMBar", func(string) (trace, int64) { return traceChild(t, strace, where.dir, rowSeqWrite), 0 }},
			{"fio " + strings.Join(fioWriteArgs("F", sz, direct), " "), func(f string) (trace, int64) {
				return traceTool(t, strace, fio, fioWriteArgs(f, sz, direct)...), 0
			}},
			{"dd " + strings.Join(ddWriteArgs("F", sz, direct), " "), func(f string) (trace, int64) {
				if err := layOutFile(f, sz.seq); err != nil {
					t.Fatal(err)
				}
				return traceTool(t, strace, dd, ddWriteArgs(f, sz, direct)...), allocated(t, f)
			}},
		} {
			f := filepath.Join(where.dir, "tool.bin")
			tr, pre := w.run(f)
			os.Remove(f)
			if got := tr.sized("write", sz.block); got != blocks {
				t.Errorf("%s, %s: %d writes of %d bytes, want %d", where.name, w.name, got, sz.block, blocks)
			}
			if tr.calls["fsync"]+tr.calls["fdatasync"] == 0 {
				t.Errorf("%s, %s: the file was not flushed: %v", where.name, w.name, tr.calls)
			}
			if got := tr.laidOut + pre; got != want {
				t.Errorf("%s, %s: %d bytes laid out before the writes, want %d (fio's layout)", where.name, w.name, got, want)
			}
			if pre > 0 && tr.truncs > 0 {
				t.Errorf("%s, %s: truncated the file laid out for it", where.name, w.name)
			}
			if (tr.direct > 0) != direct {
				t.Errorf("%s, %s: %d opens with O_DIRECT, direct I/O allowed: %v", where.name, w.name, tr.direct, direct)
			}
		}
	}
}

// directHere reports whether dir's file system takes O_DIRECT (Compare and
// RAMBar's rows fall back to cached I/O where it does not).
func directHere(t *testing.T, dir string) bool {
	t.Helper()
	f, direct, err := openUncached(filepath.Join(dir, "probe"), os.O_CREATE|os.O_WRONLY, true)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Remove(f.Name())
	return direct
}

// layOutHere reports whether files on dir's file system can be laid out
// (fallocate).
func layOutHere(t *testing.T, dir string) bool {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "probe"))
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	ok, err := layOut(f, 4096)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// allocated is how many bytes the file system holds for file (st_blocks).
func allocated(t *testing.T, file string) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(file, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

// TestCompareReportsBothSides runs `rambar bench --compare --json` (a rambar
// binary built for the test: that also checks the CLI's --compare end to end)
// on a real tmpfs and checks the plumbing: one comparison per row asked for,
// both sides measured, the tool's command line shown with the same sizes,
// a ratio. How large the ratio is, is not asserted (timing: make
// bench-storage reports it).
func TestCompareReportsBothSides(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rambar")
	if out, err := exec.Command("go", "build", "-o", bin, "rambar/app").CombinedOutput(); err != nil {
		t.Fatalf("go build rambar/app: %v\n%s", err, out)
	}
	ram := mountTmpfs(t, "256m")
	rows := []string{string(rowSeqWrite), string(rowSeqRead), string(rowFsync), string(rowUntar)}
	cs := compareWithCLI(t, bin, ram, rows)
	for i, c := range cs {
		if string(c.Row) != rows[i] || c.Target != ram {
			t.Errorf("comparison %d is %s on %s, want %s on %s", i, c.Row, c.Target, rows[i], ram)
		}
		if !c.Ours.OK() || !c.Theirs.OK() || c.Ratio <= 0 || len(c.Ours.Samples) != 2 || len(c.Theirs.Samples) != 2 {
			t.Errorf("%s: ours %+v, theirs %+v, ratio %v", c.Row, c.Ours, c.Theirs, c.Ratio)
		}
		// The ratio printed is the two medians shown, one over the other.
		if want := c.Ours.Median / c.Theirs.Median; c.Theirs.Median > 0 && math.Abs(c.Ratio-want) > 1e-9*want {
			t.Errorf("%s: ratio %v is not the medians' %v / %v", c.Row, c.Ratio, c.Ours.Median, c.Theirs.Median)
		}
		t.Logf("%s: RAMBar %s, %s %s, ratio %.2f", c.Row, c.Ours.Cell(), c.Tool, c.Theirs.Cell(), c.Ratio)
	}
	want := fmt.Sprintf("--bs=%d --size=%d", quickSizes.block, quickSizes.seq)
	if lookTool("fio") == "" {
		want = fmt.Sprintf("bs=%d count=%d", quickSizes.block, quickSizes.seq/int64(quickSizes.block))
	}
	if !strings.Contains(cs[0].Tool, want) {
		t.Errorf("the write's command line %q does not write the same blocks (%s)", cs[0].Tool, want)
	}
	if left := leftovers(t, ram); len(left) != 0 {
		t.Errorf("compare left %v on the tmpfs", left)
	}
}

// compareWithCLI runs `rambar bench --compare` on dir for rows and returns
// its comparisons.
func compareWithCLI(t *testing.T, bin, dir string, rows []string) []Comparison {
	t.Helper()
	cmd := exec.Command(bin, "bench", "--quick", "--runs", "2", "--rows", strings.Join(rows, ","), "--compare", "--json", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rambar bench --compare %s: %v\n%s", dir, err, stderr.String())
	}
	var doc struct {
		Comparisons []Comparison `json:"comparisons"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("rambar bench --json: %v\n%s", err, out)
	}
	if len(doc.Comparisons) != len(rows) {
		t.Fatalf("rambar bench --compare --rows %v gave %d comparisons", rows, len(doc.Comparisons))
	}
	return doc.Comparisons
}

// trace is what strace -ff saw one program do.
type trace struct {
	calls   map[string]int         // completed calls by name
	sizes   map[string]map[int]int // read/write: how many returned each size
	creates int                    // openat with O_CREAT that succeeded
	truncs  int                    // openat with O_TRUNC that succeeded
	direct  int                    // openat with O_DIRECT that succeeded
	written int64                  // bytes all writes returned
	laidOut int64                  // bytes fallocate reserved
}

// sized is how many calls of name returned exactly n.
func (tr trace) sized(name string, n int) int { return tr.sizes[name][n] }

var straceLine = regexp.MustCompile(`^([a-z0-9_]+)\((.*)\)\s+= (-?\d+)`)

// readTrace reads every per-thread file strace -ff -o prefix wrote.
func readTrace(t *testing.T, prefix string) trace {
	t.Helper()
	files, _ := filepath.Glob(prefix + ".*")
	if len(files) == 0 {
		t.Fatalf("strace wrote no %s.* files", prefix)
	}
	tr := trace{calls: map[string]int{}, sizes: map[string]map[int]int{}}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			m := straceLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			name, args := m[1], m[2]
			ret, _ := strconv.Atoi(m[3])
			if ret < 0 {
				continue
			}
			tr.calls[name]++
			switch name {
			case "read", "write", "pread64", "pwrite64":
				base := strings.TrimPrefix(strings.TrimSuffix(name, "64"), "p")
				if tr.sizes[base] == nil {
					tr.sizes[base] = map[int]int{}
				}
				tr.sizes[base][ret]++
				if base == "write" {
					tr.written += int64(ret)
				}
			case "openat":
				for flag, n := range map[string]*int{"O_CREAT": &tr.creates, "O_TRUNC": &tr.truncs, "O_DIRECT": &tr.direct} {
					if strings.Contains(args, flag) {
						*n++
					}
				}
			case "fallocate": // fallocate(fd, mode, offset, len)
				f := strings.Split(args, ", ")
				n, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
				tr.laidOut += n
			}
		}
	}
	return tr
}

const traced = "trace=openat,read,write,pread64,pwrite64,fallocate,fsync,fdatasync,utimensat,fchown,fchownat,chown,lchown"

// traceTool runs a tool under strace -ff and returns what it did.
func traceTool(t *testing.T, strace, tool string, args ...string) trace {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "st")
	cmd := exec.Command(strace, append([]string{"-ff", "-qq", "-s", "0", "-o", prefix, "-e", traced, tool}, args...)...)
	cmd.Env = toolEnv()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("strace %s %v: %v\n%s", tool, args, err, b)
	}
	return readTrace(t, prefix)
}

// traceChild runs the given rows once in dir, in this test binary as a child
// (TestMain), under strace -ff.
func traceChild(t *testing.T, strace, dir string, rows ...RowID) trace {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "st")
	var names []string
	for _, r := range rows {
		names = append(names, string(r))
	}
	cmd := exec.Command(strace, "-ff", "-qq", "-s", "0", "-o", prefix, "-e", traced, os.Args[0])
	cmd.Env = append(os.Environ(), "RAMBAR_BENCH_CHILD_DIR="+dir, "RAMBAR_BENCH_CHILD_ROWS="+strings.Join(names, ","))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child under strace: %v\n%s", err, b)
	}
	return readTrace(t, prefix)
}

// archiveStats counts the regular files in a tar archive and their bytes.
func archiveStats(t *testing.T, archive []byte) (files int, content int64) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, content
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			files++
			content += h.Size
		}
	}
}
