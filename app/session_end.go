package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"rambar/darwin/cocoa"
	"rambar/keeper"
	"rambar/tray"
)

// The save that must happen before the menu-bar app goes away with disks
// still mounted: at quit, at SIGTERM (launchd at logout, systemd, kill), and
// on macOS when the session ends or the Mac sleeps (natives_darwin.go). All
// of them run through one cocoa.Guard, so a logout that brings several of
// these saves once at a time and never for longer than its budget.

// sessionGuard saves c's kept and mirrored disks, saying so on stderr and
// on the menu's status line ("Saving before logout… 50%", by disks saved
// when there are several). The save is bounded and must never wait for a
// notification center asking the user's permission: before sleep (the app
// goes on after) each disk it could not save is notified from a goroutine
// of its own; at the end (logout, quit, SIGTERM) the failures are returned,
// and the one who ends the app tells them in one notice it waits for,
// within the budget (cocoa.Ending, endSession).
func (a *App) sessionGuard(c *contents, notes *notifier, status *tray.StatusLine) *cocoa.Guard {
	g := &cocoa.Guard{
		Save: func(ctx context.Context, e cocoa.Event) error {
			n := c.keptCount(ctx)
			if n == 0 {
				return nil
			}
			fmt.Fprintf(a.Stderr, "rambar: %s\n", e.Status())
			report, done := c.report(func(title, text string) error {
				if e == cocoa.WillSleep {
					notes.Go(title, text)
				}
				return nil
			}), 0
			err := c.svc.SaveAll(ctx, nil, func(name string, r keeper.Result, err error) {
				report(name, r, err)
				if done++; n > 1 && status != nil {
					status.Progress(int64(done), int64(n))
				}
			})
			return errors.Join(err, ctx.Err())
		},
	}
	if status != nil {
		lang := a.lang()
		g.Status = func(text string) { status.Set(lang.T(text)) } // the words of cocoa.Event.Status, in the menu's language
	}
	return g
}

// endSession is the last save, when the tray's loop has ended (Quit with
// disks left mounted, or a signal). A save that failed or ran out of time
// is notified, waiting for the notice at most cocoa.NoticeReserve.
func (a *App) endSession(g *cocoa.Guard, notes *notifier) {
	err := g.Run(cocoa.Terminating)
	switch {
	case err == nil:
		return
	case errors.Is(err, cocoa.ErrTimedOut):
		fmt.Fprintf(a.Stderr, "rambar: gave up saving after %v: %v\n", cocoa.EndBound, err)
	case !errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(a.Stderr, "rambar: %v\n", err)
	}
	select {
	case <-notes.Go(a.lang().T("RAMBar could not save before quitting"), a.lang().T("%s. What was written since the last save may be lost.", err)):
	case <-time.After(cocoa.NoticeReserve):
	}
}

// keptCount is how many kept or mirrored disks are mounted.
func (c *contents) keptCount(ctx context.Context) int {
	e, err := c.a.Engine()
	if err != nil {
		return 0
	}
	vs, err := e.List(ctx)
	if err != nil {
		return 1 // let the save try, and say what fails
	}
	n := 0
	for _, v := range vs {
		if c.menu.Kept(v) {
			n++
		}
	}
	return n
}
