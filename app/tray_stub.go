package main

import "context"

// runTray starts the menu-bar app. Until the tray lands, no arguments prints
// help.
func runTray(ctx context.Context, a *App) error { return runHelp(ctx, a, nil) }
