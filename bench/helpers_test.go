package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mountTmpfs mounts a real tmpfs of size (e.g. "256m") in a fresh temporary
// folder and unmounts it when the test ends. Tests run as root here and in CI.
func mountTmpfs(t testing.TB, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ram")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("mount tmpfs (the benchmark tests need root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// diskDir is a folder on an ordinary disk: /var/tmp (t.TempDir may be on a
// tmpfs /tmp on some machines).
func diskDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "rambar-bench-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if IsMemoryFS(d) {
		t.Fatalf("%s is on a memory file system; the test needs a real disk folder", d)
	}
	return d
}

// leftovers lists what the benchmark left in dir (it must leave nothing).
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestMain doubles as the child of the strace tests: with
// RAMBAR_BENCH_CHILD_DIR set, the test binary runs rows once in that folder
// and exits, 1 if a row failed. The rows are RAMBAR_BENCH_CHILD_ROWS
// (comma-separated), or the fsync row, which must make one sync per write.
func TestMain(m *testing.M) {
	if dir := os.Getenv("RAMBAR_BENCH_CHILD_DIR"); dir != "" {
		os.Exit(child(dir, os.Getenv("RAMBAR_BENCH_CHILD_ROWS")))
	}
	os.Exit(m.Run())
}

func child(dir, rowList string) int {
	rows := []RowID{rowFsync}
	if rowList != "" {
		rows = nil
		for _, r := range strings.Split(rowList, ",") {
			rows = append(rows, RowID(r))
		}
	}
	rep, err := Run(context.Background(), []Target{{Name: "child", Dir: dir}}, Options{Quick: true, Runs: 1, Rows: rows}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, r := range rep.Targets[0].Results {
		if !r.OK() || (r.Row == rowFsync && r.Syncs != int64(quickSizes.fsyncs)) {
			fmt.Fprintf(os.Stderr, "%s row: %+v\n", r.Row, r)
			return 1
		}
	}
	return 0
}
