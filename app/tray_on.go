//go:build cgo || !darwin

package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"rambar/disks"
	"rambar/tray"
)

// runTray starts the menu-bar app and returns when the user quits. A second
// copy exits quietly; auto-mount presets are mounted (contents restored) once
// the menu is up, so a slow restore never delays the icon.
func runTray(ctx context.Context, a *App) error {
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
	menu, _ := d.Disks.(*disks.Menu)
	if c := a.newContents(menu); c != nil {
		bg, stop := context.WithCancel(ctx)
		c.background(bg, d.Notify)
		defer func() {
			// Quitting (or logging out) with disks left mounted: save what
			// they keep, so nothing written since the last save is lost.
			stop()
			save, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			c.saveAll(save, d.Notify)
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
	return tray.Run(d)
}
