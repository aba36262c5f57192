package bench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rambar/ramdisk"
)

func TestDecide(t *testing.T) {
	cases := []struct {
		name      string
		ram, disk []float64
		want      Verdict
		speedup   float64
	}{
		{"clearly faster", []float64{1, 1.1, 0.9}, []float64{2.3, 2.2, 2.5}, Faster, 2.3},
		{"overlapping ranges", []float64{1, 1.2, 2.4}, []float64{1.1, 2.3, 2.5}, NoGain, 2.3 / 1.2},
		{"apart but under 5%", []float64{1.00, 1.01, 1.02}, []float64{1.03, 1.04, 1.05}, NoGain, 1.04 / 1.01},
		{"slower", []float64{3, 3.1, 3.2}, []float64{1, 1.1, 1.2}, Slower, 1.1 / 3.1},
		{"identical", []float64{1, 1, 1}, []float64{1, 1, 1}, NoGain, 1},
		{"too few", []float64{1}, []float64{2}, Unknown, 0},
		{"even count median", []float64{1, 1, 1, 1}, []float64{2, 2, 3, 3}, Faster, 2.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, v := decide(c.ram, c.disk)
			if v != c.want || abs(x-c.speedup) > 1e-9 {
				t.Errorf("Decide = %.3f %s, want %.3f %s", x, v, c.speedup, c.want)
			}
		})
	}
	sum := map[Verdict]string{Faster: "2.3× faster on the RAM disk", Slower: "1.2× slower on the RAM disk", NoGain: "perhaps 2.3× faster on the RAM disk, but not surely: the runs overlap"}
	for v, want := range sum {
		r := TrialResult{Verdict: v, Speedup: 2.3}
		if v == Slower {
			r.Speedup = 1 / 1.2
		}
		if got := r.Summary(); got != want {
			t.Errorf("Summary(%s) = %q, want %q", v, got, want)
		}
	}
}

// TestTrialSureness: a verdict within the noise says so plainly when the
// medians are close, and what was measured and how sure it is.
func TestTrialSureness(t *testing.T) {
	r := TrialResult{Verdict: NoGain, Speedup: 1.01}
	if got := r.Summary(); got != "no measurable gain (within the noise)" {
		t.Errorf("close medians: %q", got)
	}
	r = TrialResult{Verdict: NoGain, Speedup: 4.2 / 2.6, RAM: Result{Median: 2.6, Samples: []float64{2.1, 2.6, 4.5, 2.5, 2.7}},
		Disk: Result{Median: 4.2, Samples: []float64{3.9, 4.2, 4.6, 4.1, 4.3}}}
	if got, want := r.Summary(), "perhaps 1.6× faster on the RAM disk, but not surely: the runs overlap"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if got := r.Sureness(); !strings.Contains(got, "5 timed runs each") || !strings.Contains(got, "1 time in 252") {
		t.Errorf("Sureness = %q", got)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// srcDir is a small project folder on the disk.
func srcDir(t *testing.T) string {
	t.Helper()
	d := diskDir(t)
	os.MkdirAll(filepath.Join(d, "pkg"), 0o755)
	os.WriteFile(filepath.Join(d, "pkg", "a.txt"), []byte("hello\n"), 0o644)
	return d
}

// TestTrialRunsBothPlaces: a command doing 4 KB writes each flushed to the
// device (dd oflag=dsync) runs on a real tmpfs and in place, alternately, as
// many times as asked; the verdict is the one decide gives for the samples
// (how much faster the RAM disk is, is timing: not asserted here); the
// warm-up's output goes to the terminal writers, the rest to the log, and the
// copy is removed.
func TestTrialRunsBothPlaces(t *testing.T) {
	ram := mountTmpfs(t, "128m")
	src := srcDir(t)
	var out, errOut, log bytes.Buffer
	var lines []string
	res, err := Trial(context.Background(), TrialOptions{
		Src: src, RAMDir: ram, Runs: 3,
		Argv:   []string{lookTool("dd"), "if=/dev/zero", "of=out.bin", "bs=4k", "count=100", "oflag=dsync"},
		Stdout: &out, Stderr: &errOut, Log: &log,
		Progress: func(s string) { lines = append(lines, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("RAM %s, disk %s: %s", res.RAM.Cell(), res.Disk.Cell(), res.Summary())
	if x, v := decide(res.RAM.Samples, res.Disk.Samples); res.Verdict != v || res.Speedup != x || x <= 0 {
		t.Errorf("verdict %s, speedup %.2f; decide gives %s, %.2f for the samples", res.Verdict, res.Speedup, v, x)
	}
	if len(res.RAM.Samples) != 3 || len(res.Disk.Samples) != 3 || len(res.Runs) != 8 {
		t.Errorf("samples %d/%d, runs %d", len(res.RAM.Samples), len(res.Disk.Samples), len(res.Runs))
	}
	if n := strings.Count(errOut.String(), "copied"); n != 1 {
		t.Errorf("terminal got %d dd reports, want 1 (the warm-up):\n%s", n, errOut.String())
	}
	if n := strings.Count(log.String(), "copied"); n != 7 {
		t.Errorf("log got %d dd reports, want 7", n)
	}
	if res.CopyFiles != 1 || !strings.HasPrefix(res.Copy, ram) {
		t.Errorf("copy: %d files at %s", res.CopyFiles, res.Copy)
	}
	if len(lines) != 9 || !strings.Contains(lines[0], "copying") {
		t.Errorf("progress: %q", lines)
	}
	// Runs alternate, neither place always first after the warm-up.
	firsts := map[Place]int{}
	for i := 2; i < len(res.Runs); i += 2 {
		firsts[res.Runs[i].Place]++
	}
	if firsts[OnRAM] == 0 || firsts[InSitu] == 0 {
		t.Errorf("order not alternated: %+v", res.Runs)
	}
	if left := leftovers(t, ram); len(left) != 0 {
		t.Errorf("left on the RAM disk: %v", left)
	}
	if _, err := os.Stat(filepath.Join(src, "out.bin")); err != nil {
		t.Errorf("the in-place runs did not run in the source folder: %v", err)
	}
}

// TestTrialFailingCommand stops at the first failure, reports where and the
// exit status, and removes the copy.
func TestTrialFailingCommand(t *testing.T) {
	ram := mountTmpfs(t, "64m")
	_, err := Trial(context.Background(), TrialOptions{Src: srcDir(t), RAMDir: ram, Argv: []string{lookTool("sh"), "-c", "exit 3"}})
	var ce *CommandError
	if !errors.As(err, &ce) || ce.ExitCode != 3 || ce.Place != OnRAM || ce.Run != 0 {
		t.Fatalf("err = %v (%+v)", err, ce)
	}
	if want := "the command failed on the RAM disk (the warm-up run): exit status 3"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	_, err = Trial(context.Background(), TrialOptions{Src: srcDir(t), RAMDir: ram, Argv: []string{"/nonexistent/tool"}})
	if !errors.As(err, &ce) || ce.ExitCode != -1 {
		t.Errorf("missing command: %v", err)
	}
	if left := leftovers(t, ram); len(left) != 0 {
		t.Errorf("left on the RAM disk: %v", left)
	}
}

// TestTrialCancelled: cancelling while the command runs interrupts it and
// removes the copy, promptly.
func TestTrialCancelled(t *testing.T) {
	ram := mountTmpfs(t, "64m")
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	go func() {
		<-started
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	t0 := time.Now()
	_, err := Trial(ctx, TrialOptions{Src: srcDir(t), RAMDir: ram, Argv: []string{lookTool("sleep"), "30"},
		Progress: func(s string) {
			if strings.Contains(s, "warm-up") {
				once.Do(func() { close(started) })
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("took %v to stop", d)
	}
	if left := leftovers(t, ram); len(left) != 0 {
		t.Errorf("left on the RAM disk: %v", left)
	}
}

// TestTrialRefuses: no room on the RAM disk, too few runs, no command.
func TestTrialRefuses(t *testing.T) {
	ram := mountTmpfs(t, "8m")
	src := srcDir(t)
	os.WriteFile(filepath.Join(src, "big"), make([]byte, 6<<20), 0o644)
	_, err := Trial(context.Background(), TrialOptions{Src: src, RAMDir: ram, Argv: []string{"true"}})
	if !errors.Is(err, ramdisk.ErrNoSpace) || !strings.Contains(err.Error(), "holds 6.0 MiB") {
		t.Errorf("no room: %v", err)
	}
	if _, err := Trial(context.Background(), TrialOptions{Src: src, RAMDir: ram, Argv: []string{"true"}, Runs: 2}); err == nil || !strings.Contains(err.Error(), "at least 3 runs") {
		t.Errorf("2 runs: %v", err)
	}
	if _, err := Trial(context.Background(), TrialOptions{Src: src, RAMDir: ram}); err == nil {
		t.Error("no command: no error")
	}
	sub := filepath.Join(ram, "project")
	os.Mkdir(sub, 0o755)
	if _, err := Trial(context.Background(), TrialOptions{Src: sub, RAMDir: ram, Argv: []string{"true"}}); err == nil || !strings.Contains(err.Error(), "already on the RAM disk") {
		t.Errorf("source on the RAM disk: %v", err)
	}
	if _, err := Trial(context.Background(), TrialOptions{Src: ram, RAMDir: sub, Argv: []string{"true"}}); err == nil || !strings.Contains(err.Error(), "copied into itself") {
		t.Errorf("RAM folder inside the source: %v", err)
	}
	os.Remove(sub)
	if left := leftovers(t, ram); len(left) != 0 {
		t.Errorf("left on the RAM disk: %v", left)
	}
}

// TestCopyTree keeps folders, modes, modification times and symlinks.
func TestCopyTree(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "a", "b"), 0o750)
	os.WriteFile(filepath.Join(src, "a", "b", "x.sh"), []byte("#!/bin/sh\n"), 0o755)
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(filepath.Join(src, "a", "b", "x.sh"), old, old)
	os.Symlink("b/x.sh", filepath.Join(src, "a", "link"))
	dst := filepath.Join(t.TempDir(), "copy")
	if err := copyTree(context.Background(), src, dst); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dst, "a", "b", "x.sh"))
	if err != nil || st.Mode().Perm() != 0o755 || !st.ModTime().Equal(old) {
		t.Errorf("file: %v %v %v", err, st.Mode(), st.ModTime())
	}
	if l, err := os.Readlink(filepath.Join(dst, "a", "link")); err != nil || l != "b/x.sh" {
		t.Errorf("link: %q %v", l, err)
	}
	if n, files, _ := TreeSize(dst); n != 10 || files != 1 {
		t.Errorf("TreeSize = %d bytes, %d files", n, files)
	}
}

// TestGenerateArchive is deterministic and shaped as promised.
func TestGenerateArchive(t *testing.T) {
	a := generateArchive(300, 3_000_000)
	b := generateArchive(300, 3_000_000)
	if !bytes.Equal(a, b) {
		t.Fatal("archive differs between calls")
	}
	dir := t.TempDir()
	n, err := extract(context.Background(), a, dir)
	if err != nil || n != 300 {
		t.Fatalf("Extract: %d files, %v", n, err)
	}
	size, files, _ := TreeSize(dir)
	if files != 300 || size < 2_700_000 || size > 3_300_000 {
		t.Errorf("%d files, %d bytes", files, size)
	}
	depth := 0
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		depth = max(depth, strings.Count(strings.TrimPrefix(p, dir), "/"))
		return nil
	})
	if depth < 4 {
		t.Errorf("nesting depth %d, want nested packages", depth)
	}
}
