//go:build !darwin

package main

import (
	"rambar/darwin/cocoa"
	"rambar/tray"
)

// watchSession has nothing native to watch outside macOS: SIGTERM (tray.Run)
// and logind's sleep signal (mirror.WatchSleep) already reach the tray.
func (a *App) watchSession(g *cocoa.Guard, d *tray.Deps) (stop func()) { return func() {} }
