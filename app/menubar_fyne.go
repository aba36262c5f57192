//go:build cgo || !darwin

package main

import "rambar/tray"

// canRunMenuBar: this build has fyne.io/systray's menu bar (Cocoa through
// cgo on macOS, DBus on Linux).
func (a *App) canRunMenuBar() error { return nil }

// menuBar runs the tray with fyne.io/systray until the user quits.
func (a *App) menuBar(d tray.Deps) error { return tray.Run(d) }
