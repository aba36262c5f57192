//go:build linux

package keeper

import (
	"context"
	"fmt"
	"os"

	"github.com/godbus/dbus/v5"
)

const (
	login1Name  = "org.freedesktop.login1"
	login1Path  = dbus.ObjectPath("/org/freedesktop/login1")
	login1Iface = "org.freedesktop.login1.Manager"
)

// logindDelay is one of logind's "delay" inhibitors: what it holds back
// (what: "sleep", "shutdown"), the signal logind sends before it
// (Prepare...), and the verb errors name.
type logindDelay struct {
	what, signal, verb string
	// calledOff is what an error says of a Prepare...(false): a resume,
	// a shutdown called off.
	calledOff string
	// bound, when not nil, bounds the save.
	bound func(context.Context) (context.Context, context.CancelFunc)
}

// inhibit takes the inhibitor lock: open, logind waits for it (at most
// InhibitDelayMaxSec).
func (l logindDelay) inhibit(conn *dbus.Conn) (*os.File, error) {
	var fd dbus.UnixFD
	err := conn.Object(login1Name, login1Path).Call(login1Iface+".Inhibit", 0,
		l.what, "RAMBar", "Saving RAM disk contents", "delay").Store(&fd)
	if err != nil {
		return nil, fmt.Errorf("logind Inhibit: %w", err)
	}
	return os.NewFile(uintptr(fd), "logind-inhibit-"+l.what), nil
}

// watch holds the lock, runs save when logind signals Prepare...(true),
// then lets go of the lock so logind goes on, and takes a new one when
// it signals Prepare...(false); until ctx is done.
func (l logindDelay) watch(ctx context.Context, conn *dbus.Conn, save func(context.Context)) error {
	if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(login1Path), dbus.WithMatchInterface(login1Iface),
		dbus.WithMatchMember(l.signal)); err != nil {
		return fmt.Errorf("%s: match %s: %w", l.verb, l.signal, err)
	}
	ch := make(chan *dbus.Signal, 8)
	conn.Signal(ch)
	defer conn.RemoveSignal(ch)
	lock, err := l.inhibit(conn)
	if err != nil {
		return fmt.Errorf("%s: %w", l.verb, err)
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
				return fmt.Errorf("%s: the bus connection closed", l.verb)
			}
			if sig.Name != login1Iface+"."+l.signal || len(sig.Body) != 1 {
				continue
			}
			if going, _ := sig.Body[0].(bool); going {
				sctx, cancel := ctx, context.CancelFunc(func() {})
				if l.bound != nil {
					sctx, cancel = l.bound(ctx)
				}
				save(sctx)
				cancel()
				if lock != nil {
					lock.Close() // let logind go on
					lock = nil
				}
			} else if lock == nil {
				if lock, err = l.inhibit(conn); err != nil {
					return fmt.Errorf("%s: %s: %w", l.verb, l.calledOff, err)
				}
			}
		}
	}
}
