//go:build linux

package keeper

import (
	"context"
	"fmt"
	"time"

	"github.com/godbus/dbus/v5"
)

// SleepSaveTimeout bounds the save made before sleep: logind waits for a
// delay lock only up to InhibitDelayMaxSec (5 s by default) anyway.
const SleepSaveTimeout = 30 * time.Second

// WatchSleep calls save before the machine sleeps, until ctx is done. On
// Linux it holds a logind "delay" inhibitor lock (org.freedesktop.login1
// Manager.Inhibit over the system bus), runs save when logind signals
// PrepareForSleep(true), then releases the lock so sleep goes on, and takes
// a new lock on resume. The tray wires it to Keeper.SaveAll.
func WatchSleep(ctx context.Context, save func(context.Context)) error {
	conn, err := dbus.ConnectSystemBus()
	if err != nil {
		return fmt.Errorf("watch sleep: system bus: %w", err)
	}
	defer conn.Close()
	return sleepDelay.watch(ctx, conn, save)
}

// sleepDelay is the inhibitor WatchSleep holds; its save is bounded by
// SleepSaveTimeout.
var sleepDelay = logindDelay{what: "sleep", signal: "PrepareForSleep", verb: "watch sleep", calledOff: "after resume",
	bound: func(ctx context.Context) (context.Context, context.CancelFunc) {
		return context.WithTimeout(ctx, SleepSaveTimeout)
	}}
