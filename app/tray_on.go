//go:build cgo || !darwin

package main

import (
	"context"

	"rambar/tray"
)

// runTray starts the menu-bar app and returns when the user quits.
func runTray(ctx context.Context, a *App) error {
	d, err := a.trayDeps()
	if err != nil {
		return err
	}
	return tray.Run(d)
}
