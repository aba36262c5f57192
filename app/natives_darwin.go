//go:build darwin

package main

import (
	"fmt"

	"rambar/darwin/cocoa"
	"rambar/tray"
)

// watchSession makes g save when the macOS session ends, before sleep and
// when AppKit terminates the app (which then exits without returning to
// runTray's deferred save). A failure to watch is said and otherwise
// ignored: the save at SIGTERM and at Quit still happen.
func (a *App) watchSession(g *cocoa.Guard, d *tray.Deps) (stop func()) {
	stop, err := cocoa.Watch(g, func(format string, args ...any) {
		fmt.Fprintf(a.Stderr, "rambar: "+format+"\n", args...)
	})
	if err != nil {
		fmt.Fprintf(a.Stderr, "rambar: saving at logout and sleep: %v\n", err)
		return func() {}
	}
	return stop
}
