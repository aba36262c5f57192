//go:build darwin && !cgo

package main

import (
	"fmt"

	"rambar/ramdisk"
	"rambar/tray"
)

// menuBarDelegateClass is "": this build has no menu bar, so no app
// delegate to ready (and no status item in statusItemIvar to read back).
const (
	menuBarDelegateClass = ""
	statusItemIvar       = "statusItem"
)

// canRunMenuBar explains that this binary is the command-line tool only:
// RAMBar's menu bar is fyne.io/systray's status item, through cgo, and this
// build was made without it (a cross-build from Linux).
func (a *App) canRunMenuBar() error {
	return fmt.Errorf("%w: this rambar was built without cgo and is the command-line tool only; "+
		"the menu-bar app is the cgo build (RAMBar.app, or make run on a Mac). Run 'rambar help' for the commands", ramdisk.ErrUnsupported)
}

// menuBar is never reached in this build (canRunMenuBar refuses first).
func (a *App) menuBar(d tray.Deps) error { return a.canRunMenuBar() }
