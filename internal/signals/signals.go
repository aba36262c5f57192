// Package signals names the signals that end a RAMBar command or the
// menu-bar app the orderly way: the step under way finishes or is rolled
// back and the locks are released, instead of the process dying half way.
package signals

import (
	"os"
	"os/signal"
	"syscall"
)

// Stop returns the signals to handle as a request to stop, with extra:
// SIGINT (Ctrl-C), SIGTERM (kill, logout, systemd) and SIGHUP (the
// terminal closed, an ssh session dropped). SIGHUP is left out when this
// process was started to ignore it (nohup), so it goes on ignoring it.
func Stop(extra ...os.Signal) []os.Signal {
	out := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		out = append(out, syscall.SIGHUP)
	}
	return append(out, extra...)
}
