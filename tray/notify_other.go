//go:build !linux

package tray

import "context"

// DesktopNotify posts a notification: outside Linux, through zenity.
func DesktopNotify(ctx context.Context, title, text string) error { return Notify(ctx, title, text) }
