package main

import (
	"context"
	"errors"
	"fmt"

	"rambar/darwin/cocoa"
)

// The save that must happen before the menu-bar app goes away with disks
// still mounted: at quit, at SIGTERM (launchd at logout, systemd, kill), and
// on macOS when the session ends or the Mac sleeps (natives_darwin.go). All
// of them run through one cocoa.Guard, so a logout that brings several of
// these saves once at a time and never for longer than the bound.

// sessionGuard saves c's kept and mirrored disks, saying so on stderr when
// there is one (the menu has no status line of its own yet), and notifying
// each disk it could not save.
func (a *App) sessionGuard(c *contents, notify func(title, text string) error) *cocoa.Guard {
	return &cocoa.Guard{
		Save: func(ctx context.Context, e cocoa.Event) error {
			if !c.anyKept(ctx) {
				return nil
			}
			fmt.Fprintf(a.Stderr, "rambar: %s\n", e.Status())
			c.saveAll(ctx, notify)
			return ctx.Err()
		},
	}
}

// endSession is the last save, when the tray's loop has ended (Quit with
// disks left mounted, or a signal).
func (a *App) endSession(g *cocoa.Guard) {
	err := g.Run(cocoa.Terminating)
	switch {
	case errors.Is(err, cocoa.ErrTimedOut):
		fmt.Fprintf(a.Stderr, "rambar: gave up saving after %v: %v\n", cocoa.EndBound, err)
	case err != nil && !errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(a.Stderr, "rambar: %v\n", err)
	}
}

// anyKept reports whether a kept or mirrored disk is mounted.
func (c *contents) anyKept(ctx context.Context) bool {
	e, err := c.a.Engine()
	if err != nil {
		return false
	}
	vs, err := e.List(ctx)
	if err != nil {
		return true // let the save try, and say what fails
	}
	for _, v := range vs {
		if c.menu.Kept(v) {
			return true
		}
	}
	return false
}
