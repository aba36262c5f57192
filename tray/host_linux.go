package tray

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/godbus/dbus/v5"

	"rambar/ramdisk"
)

// watcherName is the DBus name of the StatusNotifierWatcher: the panel
// service (KDE, XFCE, GNOME's AppIndicator extension...) that shows tray
// icons. Without it an icon is registered nowhere and never seen.
const watcherName = "org.kde.StatusNotifierWatcher"

// defaultHostWait is how long Run waits for a tray host (a watcher) that is
// not there yet: a panel started in the same login as RAMBar may come up
// a few seconds after it.
const defaultHostWait = 15 * time.Second

// checkHost makes sure the menu can be seen before systray starts: a session
// bus that is already running (never one autolaunched with dbus-launch,
// which would stay behind and show nothing; without a bus systray
// deadlocks, fyne.io/systray v1.12.2), and a StatusNotifierWatcher on it,
// waited for up to wait. ctx ends the wait early (a signal).
func checkHost(ctx context.Context, wait time.Duration, logf func(string, ...any)) error {
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "autolaunch:" {
		// godbus (and so systray) would run dbus-launch for this.
		os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	}
	// NoAutoStartup: the address set, or a running user bus found in
	// /run/user/UID; it sets DBUS_SESSION_BUS_ADDRESS to what it found, so
	// systray's own dbus.SessionBus() connects there and never autolaunches.
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return fmt.Errorf("%w: no desktop session bus (DBUS_SESSION_BUS_ADDRESS is not set and no user bus runs); the menu-bar app needs a graphical session, without one, rambar agent keeps disks saved (rambar login on --headless starts it at boot) and the CLI works anywhere: rambar help", ramdisk.ErrUnsupported)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return fmt.Errorf("%w: the desktop session bus refused RAMBar (DBus: %v); without one, rambar agent keeps disks saved (rambar login on --headless starts it at boot) and the CLI works anywhere: rambar help", ramdisk.ErrUnsupported, err)
	}
	if err := conn.Hello(); err != nil {
		return fmt.Errorf("%w: the desktop session bus did not answer (DBus: %v); without one, rambar agent keeps disks saved (rambar login on --headless starts it at boot) and the CLI works anywhere: rambar help", ramdisk.ErrUnsupported, err)
	}
	return waitWatcher(ctx, conn, wait, logf)
}

// waitWatcher returns when watcherName has an owner on conn's bus, or an
// error naming what is missing once wait has passed without one.
func waitWatcher(ctx context.Context, conn *dbus.Conn, wait time.Duration, logf func(string, ...any)) error {
	// Listen before asking, so an owner that arrives in between is not missed.
	opts := []dbus.MatchOption{dbus.WithMatchInterface("org.freedesktop.DBus"), dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, watcherName)}
	if err := conn.AddMatchSignal(opts...); err != nil {
		return fmt.Errorf("tray: watch for %s: DBus AddMatch: %w", watcherName, err)
	}
	signals := make(chan *dbus.Signal, 8)
	conn.Signal(signals)
	defer conn.RemoveSignal(signals)
	var has bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, watcherName).Store(&has); err != nil {
		return fmt.Errorf("tray: look for %s: DBus NameHasOwner: %w", watcherName, err)
	}
	if has {
		return nil
	}
	logf("no system tray yet (nothing owns %s on the session bus); waiting up to %v for one", watcherName, wait)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case s := <-signals:
			if owner, ok := newOwner(s); ok && owner != "" {
				logf("system tray appeared (%s is %s)", watcherName, owner)
				return nil
			}
		case <-timer.C:
			return fmt.Errorf("%w: no system tray to show the menu in: nothing on the session bus provides %s (waited %v; on GNOME, install the AppIndicator extension); without one, rambar agent keeps disks saved (rambar login on --headless starts it at boot) and the CLI works anywhere: rambar help",
				ramdisk.ErrUnsupported, watcherName, wait)
		case <-ctx.Done():
			return fmt.Errorf("tray: stopped while waiting for %s: %w", watcherName, ramdisk.ErrCancelled)
		}
	}
}

// newOwner reads a NameOwnerChanged(name, old, new) signal for watcherName.
func newOwner(s *dbus.Signal) (string, bool) {
	if s == nil || s.Name != "org.freedesktop.DBus.NameOwnerChanged" || len(s.Body) != 3 {
		return "", false
	}
	name, _ := s.Body[0].(string)
	owner, ok := s.Body[2].(string)
	return owner, ok && name == watcherName
}
