//go:build !linux

package keeper

import (
	"context"
	"fmt"

	"rambar/ramdisk"
)

// WatchShutdown is logind's, on Linux. On macOS the session's end comes
// through the app's workspace notifications and SIGTERM from launchd.
func WatchShutdown(ctx context.Context, save func(context.Context)) error {
	return fmt.Errorf("watch shutdown: %w: logind is Linux's", ramdisk.ErrUnsupported)
}
