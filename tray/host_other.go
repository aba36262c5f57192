//go:build !linux && (cgo || !darwin)

package tray

import (
	"context"
	"time"
)

// watcherName is the DBus name of the StatusNotifierWatcher (Linux only).
const watcherName = "org.kde.StatusNotifierWatcher"

// defaultHostWait is how long Run waits for a tray host on Linux.
const defaultHostWait = 15 * time.Second

// checkHost has nothing to check outside Linux: the macOS menu bar is always
// there and Cocoa needs no bus.
func checkHost(ctx context.Context, wait time.Duration, logf func(string, ...any)) error { return nil }
