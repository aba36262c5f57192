//go:build unix

package record

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// Proc is a process as a record names it: its id and its start time, so a
// record of a process that is gone is never taken for a new process that
// got the same id. Start 0 is unknown (then the id alone tells).
type Proc struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start,omitempty"`
}

// Self is this process.
func Self() Proc { return Proc{PID: os.Getpid(), Start: StartTime(os.Getpid())} }

// Alive reports whether p still runs: a process with its id runs (as
// another user too), and, where p's start time is known, it is the one
// that started then.
func (p Proc) Alive() bool { return p.AliveWith(StartTime) }

// AliveWith is Alive with the start times read by start (tests: another
// /proc).
func (p Proc) AliveWith(start func(pid int) uint64) bool {
	if p.PID <= 0 {
		return false
	}
	if p.PID == os.Getpid() {
		return p.Start == 0 || p.Start == start(p.PID)
	}
	if p.Start != 0 {
		return start(p.PID) == p.Start
	}
	return Alive(p.PID)
}

// Alive reports whether a process with that id runs (EPERM: it does, as
// another user).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func dirOf(path string) string { return filepath.Dir(path) }
