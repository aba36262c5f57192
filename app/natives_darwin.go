//go:build darwin

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"rambar/darwin/cocoa"
	"rambar/tray"
)

// natives puts the native macOS parts (darwin/cocoa) into the tray's Deps:
// the dialogs as native windows that take the keyboard (zenity's osascript
// windows can't be activated) and notifications through
// UNUserNotificationCenter, each with its fallback. (The login item goes
// through SMAppService in loginToggle, for the CLI too.)
//
//	RAMBAR_NOTIFY=log        notifications go to stderr only
//	RAMBAR_NOTIFY=osascript  when native ones can't be shown (not in the
//	                         bundle, or turned off), also try osascript,
//	                         which macOS attributes to Script Editor
func (a *App) natives(d *tray.Deps) {
	if dlg, err := cocoa.Native(); err == nil {
		d.Dialogs = nativeDialogs{dlg}
		d.EditPresets = nativeDialogs{dlg}
	} else {
		fmt.Fprintf(a.Stderr, "rambar: native dialogs: %v\n", err)
	}
	mode := a.Getenv("RAMBAR_NOTIFY")
	if mode == "log" {
		return // trayDeps' notifier already writes to stderr only
	}
	n := &cocoa.Notifier{Log: func(line string) { fmt.Fprintf(a.Stderr, "rambar: %s\n", line) }}
	if c, err := cocoa.NewCenter(); err == nil {
		n.Center = c
	}
	if mode == "osascript" {
		n.Fallback = tray.Notify
	}
	d.Notify = func(title, text string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return n.Notify(ctx, title, text)
	}
}

// loginService is RAMBar.app's SMAppService login item, or nil where there
// is none (before macOS 13, or not running from the bundle).
func (a *App) loginService() cocoa.LoginService {
	svc, err := cocoa.NewLoginService()
	if err != nil {
		return nil
	}
	return svc
}

// watchSession makes g save when the macOS session ends, before sleep and
// when AppKit terminates the app (which then exits without returning to
// runTray's deferred save). A failure to watch is said and otherwise
// ignored: the save at SIGTERM and at Quit still happen.
func (a *App) watchSession(g *cocoa.Guard) (stop func()) {
	stop, err := cocoa.Watch(g, func(format string, args ...any) {
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
