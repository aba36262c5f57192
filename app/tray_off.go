//go:build darwin && !cgo

package main

import (
	"context"
	"fmt"

	"rambar/ramdisk"
)

// runTray explains that this binary has no menu bar: the Cocoa tray needs
// cgo, and this build was made without it (a cross-build from Linux).
func runTray(ctx context.Context, a *App) error {
	return fmt.Errorf("%w: this rambar was built without cgo and is the command-line tool only; "+
		"the menu-bar app is the cgo build (RAMBar.app, or make run on a Mac). Run 'rambar help' for the commands", ramdisk.ErrUnsupported)
}
