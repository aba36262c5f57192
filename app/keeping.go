package main

import (
	"context"
	"errors"
	"fmt"

	"rambar/darwin/cocoa"
	"rambar/keeper"
	"rambar/ramdisk"
)

// keep is the keeping of kept and mirrored disks that no click starts, one
// code for the menu-bar app and the agent (`rambar agent`, which is the
// app without its menu): autosave and the saves that follow the change
// feeds (contents.background), the save before sleep, the save before
// logout and shutdown (macOS's session events, logind's PrepareForShutdown
// on Linux), and the local API the CLI asks (agent_serve.go). end stops
// all of it and makes the last save: quitting, SIGTERM or the end of the
// session with disks left mounted must not lose what was written since
// the last save. The caller holds the single-instance lock.
func (a *App) keep(ctx context.Context, c *contents, notes *notifier, g *cocoa.Guard) (end func()) {
	bg, stop := context.WithCancel(ctx)
	c.background(bg, notes)
	unwatch := a.watchSession(g, func(title, text string) { notes.Notify(title, text) })
	go a.watchShutdown(bg, g)
	served := a.serveAPI(bg, c.svc)
	return func() {
		stop()
		served() // the requests under way end first: the last save takes their disks' locks after them
		unwatch()
		a.endSession(g, notes)
	}
}

// watchShutdown runs the session guard's save when logind announces a
// shutdown or reboot (PrepareForShutdown), holding a delay inhibitor until
// it is done; where there is no logind (macOS: the session events do it)
// it returns at once.
func (a *App) watchShutdown(ctx context.Context, g *cocoa.Guard) {
	err := keeper.WatchShutdown(ctx, func(context.Context) {
		if err := g.Run(cocoa.SessionEnding); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintf(a.Stderr, "rambar: saving before shutdown: %v\n", err)
		}
	})
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, ramdisk.ErrUnsupported) && a.Getenv("RAMBAR_DEBUG") != "" {
		fmt.Fprintf(a.Stderr, "rambar: %v\n", err)
	}
}
