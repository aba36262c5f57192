//go:build darwin

package tree

import "golang.org/x/sys/unix"

// StillWatch is Linux's inotify shortcut for a save's look (still_linux.go).
// macOS has no per-folder queue a save could read in one call (FSEvents
// delivers through a run loop, with latency), so a save there always looks.
type StillWatch struct{}

// NewStillWatch is nil: no watch, the save looks.
func NewStillWatch() *StillWatch { return nil }

func (w *StillWatch) add(int, string, string) {}

func (w *StillWatch) addFile(int, []byte, *unix.Stat_t) {}

// Still is false: without a watch a save always looks.
func (w *StillWatch) Still() bool { return false }

// Also has nothing to ask: Still is false anyway.
func (w *StillWatch) Also(func() bool) {}

// Close has nothing to close.
func (w *StillWatch) Close() {}
