package tray

import (
	"fmt"

	"github.com/godbus/dbus/v5"

	"rambar/ramdisk"
)

// checkSession makes sure a DBus session bus answers: without one, systray
// deadlocks (fyne.io/systray v1.12.2), so the app says so and exits instead.
func checkSession() error {
	if _, err := dbus.SessionBus(); err != nil {
		return fmt.Errorf("%w: no desktop session bus (DBus: %v); the menu-bar app needs a graphical session, the CLI works anywhere: rambar help", ramdisk.ErrUnsupported, err)
	}
	return nil
}
