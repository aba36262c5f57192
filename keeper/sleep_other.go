//go:build !linux

package keeper

import (
	"context"
	"fmt"

	"rambar/ramdisk"
)

// WatchSleep is not available here. On macOS the notice before sleep comes
// from IOKit (IORegisterForSystemPower with a CFRunLoop source, then
// IOAllowPowerChange): a C API that needs cgo, and this package builds
// without it. No command-line tool gives a hook before sleep (pmset -g log
// reports after the fact). The macOS menu-bar build is cgo already (the
// systray's Cocoa glue), so the tray can register there and call
// Keeper.SaveAll; until then, autosave and save on eject/quit keep the
// contents.
func WatchSleep(ctx context.Context, save func(context.Context)) error {
	return fmt.Errorf("watch sleep: %w: needs IOKit power notifications (cgo)", ramdisk.ErrUnsupported)
}
