package main

import (
	"context"
	"errors"
	"fmt"

	"rambar/disks"
	"rambar/tray"
)

// runTray starts the menu-bar app and returns when the user quits. A second
// copy exits quietly; auto-mount presets are mounted (contents restored) once
// the menu is up, so a slow restore never delays the icon.
func runTray(ctx context.Context, a *App) error {
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
	if c := a.newContents(menu); c != nil {
		bg, stop := context.WithCancel(ctx)
		notes := a.notices()
		c.background(bg, notes)
		d.Status = &tray.StatusLine{}
		g := a.sessionGuard(c, notes, d.Status)
		unwatch := a.watchSession(g, func(title, text string) { notes.Notify(title, text) })
		defer func() {
			// Quitting (or logging out) with disks left mounted: save what
			// they keep, so nothing written since the last save is lost.
			stop()
			unwatch()
			a.endSession(g, notes)
		}()
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
