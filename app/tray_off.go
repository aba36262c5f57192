//go:build darwin && !cgo

package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"

	"rambar/darwin/cocoa"
	"rambar/internal/signals"
	"rambar/ramdisk"
	"rambar/tray"
)

// canRunMenuBar explains that this binary's menu bar is not the released
// one: the release's tray is fyne's, through cgo, and this build was made
// without it (a cross-build from Linux). RAMBAR_TRAY=purego runs the menu
// bar of darwin/cocoa instead, which no Mac has run yet (darwin/README.md).
func (a *App) canRunMenuBar() error {
	if a.Getenv("RAMBAR_TRAY") == "purego" {
		return nil
	}
	return fmt.Errorf("%w: this rambar was built without cgo and is the command-line tool only; "+
		"the menu-bar app is the cgo build (RAMBar.app, or make run on a Mac), or try this build's untested purego menu bar with RAMBAR_TRAY=purego. Run 'rambar help' for the commands", ramdisk.ErrUnsupported)
}

// menuBar runs the tray on darwin/cocoa's status item (purego, no cgo):
// the same Controller as tray.Run, shown through cocoaUI. AppKit exits the
// process when the app terminates, after the session Guard's save.
func (a *App) menuBar(d tray.Deps) error {
	ui := &cocoaUI{}
	quit := sync.OnceFunc(cocoa.Terminate) // the menu's Quit, or the loop's end
	d.Quit = quit
	c := tray.New(d, ui)
	return cocoa.RunStatusItem(c.Click, c.RefreshNow, func(s *cocoa.StatusItem) {
		ui.set(s)
		if d.Started != nil {
			go func() {
				d.Started()
				c.RefreshNow()
			}()
		}
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, signals.Stop()...)
		go func() {
			<-sigs
			c.Quit()
		}()
		c.Run(context.Background())
		quit()
	})
}
