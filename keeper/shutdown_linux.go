//go:build linux

package keeper

import (
	"context"
	"fmt"
	"os"

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
	return watchShutdown(ctx, conn, save)
}

func inhibitShutdown(conn *dbus.Conn) (*os.File, error) {
	var fd dbus.UnixFD
	err := conn.Object(login1Name, login1Path).Call(login1Iface+".Inhibit", 0,
		"shutdown", "RAMBar", "Saving RAM disk contents", "delay").Store(&fd)
	if err != nil {
		return nil, fmt.Errorf("logind Inhibit: %w", err)
	}
	return os.NewFile(uintptr(fd), "logind-inhibit-shutdown"), nil
}

func watchShutdown(ctx context.Context, conn *dbus.Conn, save func(context.Context)) error {
	if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(login1Path), dbus.WithMatchInterface(login1Iface),
		dbus.WithMatchMember("PrepareForShutdown")); err != nil {
		return fmt.Errorf("watch shutdown: match PrepareForShutdown: %w", err)
	}
	ch := make(chan *dbus.Signal, 8)
	conn.Signal(ch)
	defer conn.RemoveSignal(ch)
	lock, err := inhibitShutdown(conn)
	if err != nil {
		return fmt.Errorf("watch shutdown: %w", err)
	}
	defer func() {
		if lock != nil {
			lock.Close()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case sig, ok := <-ch:
			if !ok {
				return fmt.Errorf("watch shutdown: the bus connection closed")
			}
			if sig.Name != login1Iface+".PrepareForShutdown" || len(sig.Body) != 1 {
				continue
			}
			if going, _ := sig.Body[0].(bool); going {
				save(ctx)
				if lock != nil {
					lock.Close() // let the shutdown go on
					lock = nil
				}
			} else if lock == nil {
				if lock, err = inhibitShutdown(conn); err != nil {
					return fmt.Errorf("watch shutdown: after it was called off: %w", err)
				}
			}
		}
	}
}
