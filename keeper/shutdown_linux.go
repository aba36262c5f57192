//go:build linux

package keeper

import (
	"context"
	"fmt"

	"github.com/godbus/dbus/v5"
)

// WatchShutdown calls save before the machine shuts down or reboots, until
// ctx is done: it holds a logind "delay" inhibitor lock for "shutdown"
// (Manager.Inhibit over the system bus), runs save when logind signals
// PrepareForShutdown(true), then releases the lock so the shutdown goes
// on; a shutdown called off (PrepareForShutdown(false)) takes a new lock.
// The agent and the menu-bar app wire it to their session guard: a user
// service is stopped (SIGTERM) late in a shutdown, the inhibitor has the
// disks saved at its start. logind waits at most InhibitDelayMaxSec.
func WatchShutdown(ctx context.Context, save func(context.Context)) error {
	conn, err := dbus.ConnectSystemBus()
	if err != nil {
		return fmt.Errorf("watch shutdown: system bus: %w", err)
	}
	defer conn.Close()
	return shutdownDelay.watch(ctx, conn, save)
}

// shutdownDelay is the inhibitor WatchShutdown holds.
var shutdownDelay = logindDelay{what: "shutdown", signal: "PrepareForShutdown", verb: "watch shutdown", calledOff: "after it was called off"}
