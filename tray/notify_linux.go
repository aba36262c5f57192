package tray

import (
	"context"
	"fmt"

	"github.com/godbus/dbus/v5"
)

// NotificationsName is the notification server's name on the session bus
// (the Desktop Notifications Specification).
const NotificationsName = "org.freedesktop.Notifications"

// notifyTimeout is how long a notice stays (ms; the server may differ).
const notifyTimeout = int32(10000)

// DesktopNotify posts a notification to the desktop's notification server
// over the session bus: RAMBar as the application (its icon, rambar, as
// make install names it), title as the summary and text as the body, as
// the Desktop Notifications Specification has them (zenity's would name
// the app "Zenity notification" and drop the title on dunst).
func DesktopNotify(ctx context.Context, title, text string) error {
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return fmt.Errorf("no desktop session bus for notifications: %w", err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return fmt.Errorf("notifications: session bus: %w", err)
	}
	if err := conn.Hello(); err != nil {
		return fmt.Errorf("notifications: session bus: %w", err)
	}
	var owned bool
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, NotificationsName).Store(&owned); err != nil {
		return fmt.Errorf("notifications: DBus NameHasOwner: %w", err)
	}
	if !owned {
		return fmt.Errorf("no notification server: nothing owns %s on the session bus (the desktop's notification daemon, such as dunst, mako or xfce4-notifyd, is not running)", NotificationsName)
	}
	var id uint32
	call := conn.Object(NotificationsName, "/org/freedesktop/Notifications").CallWithContext(ctx, NotificationsName+".Notify", 0,
		"RAMBar", uint32(0), "rambar", title, text, []string{}, map[string]dbus.Variant{"desktop-entry": dbus.MakeVariant("rambar")}, notifyTimeout)
	if err := call.Store(&id); err != nil {
		return fmt.Errorf("notification server %s: Notify: %w", NotificationsName, err)
	}
	return nil
}
