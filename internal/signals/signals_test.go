package signals

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
)

func TestStopHasHangupUnlessIgnored(t *testing.T) {
	has := func(sigs []os.Signal, s os.Signal) bool {
		for _, x := range sigs {
			if x == s {
				return true
			}
		}
		return false
	}
	got := Stop(syscall.SIGPIPE)
	if !has(got, os.Interrupt) || !has(got, syscall.SIGTERM) || !has(got, syscall.SIGPIPE) {
		t.Errorf("Stop(SIGPIPE) = %v", got)
	}
	if has(got, syscall.SIGHUP) == signal.Ignored(syscall.SIGHUP) {
		t.Errorf("Stop() = %v with SIGHUP ignored %v", got, signal.Ignored(syscall.SIGHUP))
	}
	signal.Ignore(syscall.SIGHUP) // as under nohup
	defer signal.Reset(syscall.SIGHUP)
	if has(Stop(), syscall.SIGHUP) {
		t.Error("SIGHUP handled although ignored")
	}
}
