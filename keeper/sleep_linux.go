//go:build linux

package keeper

import (
	"context"
	"fmt"
	"os"
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
	return watchSleep(ctx, conn, save)
}

const (
	login1Name  = "org.freedesktop.login1"
	login1Path  = dbus.ObjectPath("/org/freedesktop/login1")
	login1Iface = "org.freedesktop.login1.Manager"
)

func inhibit(conn *dbus.Conn) (*os.File, error) {
	var fd dbus.UnixFD
	err := conn.Object(login1Name, login1Path).Call(login1Iface+".Inhibit", 0,
		"sleep", "RAMBar", "Saving RAM disk contents", "delay").Store(&fd)
	if err != nil {
		return nil, fmt.Errorf("logind Inhibit: %w", err)
	}
	return os.NewFile(uintptr(fd), "logind-inhibit"), nil
}

func watchSleep(ctx context.Context, conn *dbus.Conn, save func(context.Context)) error {
	if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(login1Path), dbus.WithMatchInterface(login1Iface),
		dbus.WithMatchMember("PrepareForSleep")); err != nil {
		return fmt.Errorf("watch sleep: match PrepareForSleep: %w", err)
	}
	ch := make(chan *dbus.Signal, 8)
	conn.Signal(ch)
	defer conn.RemoveSignal(ch)
	lock, err := inhibit(conn)
	if err != nil {
		return fmt.Errorf("watch sleep: %w", err)
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
				return fmt.Errorf("watch sleep: the bus connection closed")
			}
			if sig.Name != login1Iface+".PrepareForSleep" || len(sig.Body) != 1 {
				continue
			}
			going, _ := sig.Body[0].(bool)
			if going {
				sctx, cancel := context.WithTimeout(ctx, SleepSaveTimeout)
				save(sctx)
				cancel()
				if lock != nil {
					lock.Close() // let the machine sleep
					lock = nil
				}
			} else if lock == nil {
				if lock, err = inhibit(conn); err != nil {
					return fmt.Errorf("watch sleep: after resume: %w", err)
				}
			}
		}
	}
}
