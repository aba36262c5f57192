//go:build !darwin

package main

import (
	"context"
	"errors"
	"fmt"

	"rambar/darwin/cocoa"
	"rambar/tray"
)

// natives has nothing to add outside macOS: the tray's zenity dialogs and
// the XDG autostart entry are the native ways there.
func (a *App) natives(d *tray.Deps) {}

// prepareNatives has nothing to ready outside macOS.
func (a *App) prepareNatives() {}

// desktopNotify shows notices with zenity (a desktop notification through
// the session's notification server), each also written on stderr.
func (a *App) desktopNotify() func(ctx context.Context, title, text string) error {
	return func(ctx context.Context, title, text string) error {
		a.logNotice(ctx, title, text)
		if err := tray.DesktopNotify(ctx, title, text); err != nil {
			return fmt.Errorf("notification: %w", err)
		}
		return nil
	}
}

// watchSession has nothing native to watch outside macOS: SIGTERM (tray.Run)
// and logind's sleep signal (keeper.WatchSleep) already reach the tray.
func (a *App) watchSession(g *cocoa.Guard, notify func(title, text string)) (stop func()) {
	return func() {}
}

// loginService: SMAppService is macOS's.
func (a *App) loginService() (cocoa.LoginService, error) {
	return nil, errors.New("SMAppService is macOS's")
}

// captureNatives has nothing to capture outside macOS.
func (a *App) captureNatives(ctx context.Context, dir string) (string, error) { return "", nil }

// preferredLanguages is macOS's alone: elsewhere the environment says.
func preferredLanguages() []string { return nil }
