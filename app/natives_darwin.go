//go:build darwin

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"rambar/darwin/cocoa"
	"rambar/tray"
)

// natives puts the native macOS dialogs (darwin/cocoa) into the tray's
// Deps: windows that take the keyboard (zenity's osascript windows can't be
// activated). Notices go through the App's one notifier (notices), the
// login item through SMAppService in loginToggle, for the CLI too.
func (a *App) natives(d *tray.Deps) {
	if dlg, err := cocoa.Native(); err == nil {
		dlg.Lang = d.Lang
		d.Dialogs = nativeDialogs{dlg}
		d.EditPresets = nativeDialogs{dlg}
	} else {
		fmt.Fprintf(a.Stderr, "rambar: native dialogs: %v\n", err)
	}
}

// prepareNatives readies the native side before the menu bar's run loop
// starts (cocoa.Prepare): applicationShouldTerminate: on the menu bar's
// delegate class, the main menu with its Edit submenu, no relaunch at
// login, the notification delegate. What fails is said on stderr; the
// menu bar runs anyway.
func (a *App) prepareNatives() {
	if err := cocoa.Prepare(menuBarDelegateClass); err != nil {
		fmt.Fprintf(a.Stderr, "rambar: %v\n", err)
	}
}

// desktopNotify shows notices through UNUserNotificationCenter from the
// app bundle (cocoa.Notifier: permission asked once, every notice logged
// on stderr); with RAMBAR_NOTIFY=osascript, also through osascript when
// native ones can't be shown (macOS attributes those to Script Editor).
func (a *App) desktopNotify() func(ctx context.Context, title, text string) error {
	n := &cocoa.Notifier{Log: func(line string) { fmt.Fprintf(a.Stderr, "rambar: %s\n", line) }}
	if c, err := cocoa.NewCenter(); err == nil {
		n.Center = c
	}
	if a.Getenv("RAMBAR_NOTIFY") == "osascript" {
		n.Fallback = tray.Notify
	}
	return n.Notify
}

// loginService is RAMBar.app's SMAppService login item, or why there is
// none (before macOS 13, or not running from the bundle).
func (a *App) loginService() (cocoa.LoginService, error) { return cocoa.NewLoginService() }

// watchSession makes g save when the macOS session ends, before sleep and
// when AppKit terminates the app (which then exits without returning to
// runTray's deferred save); notify tells a logout's failed save. A failure
// to watch is said and otherwise ignored: the save at SIGTERM and at Quit
// still happen.
func (a *App) watchSession(g *cocoa.Guard, notify func(title, text string)) (stop func()) {
	stop, err := cocoa.Watch(g, notify, func(format string, args ...any) {
		fmt.Fprintf(a.Stderr, "rambar: "+format+"\n", args...)
	})
	if err != nil {
		fmt.Fprintf(a.Stderr, "rambar: saving at logout and sleep: %v\n", err)
		return func() {}
	}
	return stop
}

// captureNatives saves what `rambar doctor --capture` must tell about the
// native side (in a bundle, SMAppService's and the notifications' status)
// in dir/natives.txt, and returns that file.
func (a *App) captureNatives(ctx context.Context, dir string) (string, error) {
	p := filepath.Join(dir, "natives.txt")
	if err := os.WriteFile(p, []byte(cocoa.Describe(ctx).Text()), 0o644); err != nil {
		return "", fmt.Errorf("capture: %w", err)
	}
	return p, nil
}

// preferredLanguages is NSLocale's preferredLanguages (the app's own
// language first, when the user chose one for RAMBar).
func preferredLanguages() []string { return cocoa.PreferredLanguages() }
