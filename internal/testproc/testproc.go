// Package testproc gives tests the id of a process that has ended, to
// name as the writer of what a killed RAMBar left behind.
package testproc

import (
	"os/exec"
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
