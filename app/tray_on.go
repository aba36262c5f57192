package main

import (
	"context"
	"errors"
	"fmt"

	"rambar/darwin/cocoa"
	"rambar/disks"
	"rambar/tray"
)

// runTray starts the menu-bar app and returns when the user quits. A second
// copy exits quietly; auto-mount presets are mounted (contents restored) once
// the menu is up, so a slow restore never delays the icon.
func runTray(ctx context.Context, a *App) error { return a.trayRun(ctx, nil) }

// trayHooks let the self-test run the real menu bar: ready is told when the
// menu is up (instead of mounting the presets), with the tray's Deps and
// the session guard (nil without a data folder); closing stop ends it.
type trayHooks struct {
	ready func(d *tray.Deps, g *cocoa.Guard)
	stop  <-chan struct{}
}

// trayRun is runTray, with the self-test's hooks when h is set.
func (a *App) trayRun(ctx context.Context, h *trayHooks) error {
	if err := a.canRunMenuBar(); err != nil {
		return err
	}
	release, err := a.singleInstance()
	if errors.Is(err, errAlreadyRunning) {
		fmt.Fprintln(a.Stderr, "rambar: already running in the menu bar")
		return nil
	}
	if err != nil {
		return err
	}
	defer release()
	d, err := a.trayDeps()
	if err != nil {
		return err
	}
	a.natives(&d)
	a.prepareNatives()
	menu, _ := d.Disks.(*disks.Menu)
	var guard *cocoa.Guard
	if c := a.newContents(menu); c != nil {
		bg, stop := context.WithCancel(ctx)
		notes := a.notices()
		c.background(bg, notes)
		d.Status = &tray.StatusLine{}
		g := a.sessionGuard(c, notes, d.Status)
		guard = g
		unwatch := a.watchSession(g, func(title, text string) { notes.Notify(title, text) })
		defer func() {
			// Quitting (or logging out) with disks left mounted: save what
			// they keep, so nothing written since the last save is lost.
			stop()
			unwatch()
			a.endSession(g, notes)
		}()
	}
	if h != nil {
		d.Stop = h.stop
		d.Started = func() { h.ready(&d, guard) }
		return a.menuBar(d)
	}
	d.Started = func() {
		if menu == nil {
			return
		}
		res, err := menu.S.Up(ctx, nil)
		if err != nil {
			d.Notify("Presets", err.Error())
			return
		}
		for _, r := range res {
			if r.Err != nil {
				d.Notify("Could not mount "+r.Preset.Name, r.Err.Error())
			}
		}
	}
	return a.menuBar(d)
}
