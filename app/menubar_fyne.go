//go:build cgo || !darwin

package main

import "rambar/tray"

// menuBarDelegateClass is the NSApplicationDelegate class fyne.io/systray
// sets on macOS (SystrayAppDelegate, systray_darwin.m): cocoa.Prepare adds
// applicationShouldTerminate: to it before the menu bar sets its delegate.
// statusItemIvar is the instance variable where that delegate keeps its
// NSStatusItem (the self-test reads the title back from it).
// menubar_fyne_test.go checks both names against fyne's source.
const (
	menuBarDelegateClass = "SystrayAppDelegate"
	statusItemIvar       = "statusItem"
)

// canRunMenuBar: this build has fyne.io/systray's menu bar (Cocoa through
// cgo on macOS, DBus on Linux).
func (a *App) canRunMenuBar() error { return nil }

// menuBar runs the tray with fyne.io/systray until the user quits.
func (a *App) menuBar(d tray.Deps) error { return tray.Run(d) }
