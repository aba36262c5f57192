//go:build darwin

package mirror

// stillWatch is Linux's inotify shortcut for a save's look (still_linux.go).
// macOS has no per-folder queue a save could read in one call (FSEvents
// delivers through a run loop, with latency), so a save there always looks.
type stillWatch struct{}

// newStillWatch is nil: no watch, the save looks.
func newStillWatch() *stillWatch { return nil }

func (w *stillWatch) add(int, string, string) {}

func (w *stillWatch) addFile(int, []byte) {}

func (w *stillWatch) still() bool { return false }

func (w *stillWatch) close() {}
