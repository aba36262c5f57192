//go:build !darwin

package main

import (
	"context"

	"rambar/darwin/cocoa"
	"rambar/tray"
)

// natives has nothing to add outside macOS: the tray's zenity dialogs and
// notifications and the XDG autostart entry are the native ways there.
func (a *App) natives(d *tray.Deps) {}

// watchSession has nothing native to watch outside macOS: SIGTERM (tray.Run)
// and logind's sleep signal (mirror.WatchSleep) already reach the tray.
func (a *App) watchSession(g *cocoa.Guard) (stop func()) { return func() {} }

// loginService is nil: SMAppService is macOS's.
func (a *App) loginService() cocoa.LoginService { return nil }

// captureNatives has nothing to capture outside macOS.
func (a *App) captureNatives(ctx context.Context, dir string) (string, error) { return "", nil }
