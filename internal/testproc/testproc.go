// Package testproc gives tests the id of a process that has ended, to
// name as the writer of what a killed RAMBar left behind, and plants such
// leftovers.
package testproc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Gone runs a process to its end and returns its id: no process has it
// now (unless the system gives it again, which takes a full turn of ids).
func Gone(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// KilledWrites plants in dir three temporary copies named as atomicfile
// names them (.BASE.tmp-PID-N): one of base whose writer was killed before
// its rename, one of base that a live writer (this process) is writing,
// and one of other whose writer was killed. The check it returns, run
// after a write of base, fails t unless only the first is gone.
func KilledWrites(t testing.TB, dir, base, other string) (check func()) {
	t.Helper()
	gone := Gone(t)
	dead := fmt.Sprintf(".%s.tmp-%d-1", base, gone)
	live := fmt.Sprintf(".%s.tmp-%d-2", base, os.Getpid())
	another := fmt.Sprintf(".%s.tmp-%d-3", other, gone)
	for _, n := range []string{dead, live, another} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		t.Helper()
		for n, want := range map[string]bool{dead: false, live: true, another: true} {
			if _, err := os.Lstat(filepath.Join(dir, n)); (err == nil) != want {
				t.Errorf("%s: there %v, want %v", n, err == nil, want)
			}
		}
	}
}
