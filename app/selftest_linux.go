package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/godbus/dbus/v5"
	"golang.org/x/sys/unix"

	"rambar/darwin/cocoa"
	"rambar/login"
	"rambar/selftest"
)

// What the self-test's native lines check on Linux.
const (
	trayItemRule   = "the StatusNotifierItem this process registered on the session bus shows the title the menu set (its Title property), and its menu is read over com.canonical.dbusmenu"
	notifyPostRule = "one notification through the app's notifier (zenity, to the session's notification server)"
	loginRule      = "the XDG autostart entry `rambar login status` reads, read only"
	sessionRule    = "a file written on the kept disk is saved by the menu bar's guard before sleep (the disk then has nothing unsaved); SIGTERM (tray.Run) and logind's PrepareForSleep (keeper.WatchSleep) drive the same guard"
)

// trayItem is this process's StatusNotifierItem on the session bus.
func trayItem(ctx context.Context) (*dbus.Conn, dbus.BusObject, string, error) {
	conn, err := dbus.ConnectSessionBus(dbus.WithContext(ctx))
	if err != nil {
		return nil, nil, "", fmt.Errorf("DBus: connect to the session bus: %w", err)
	}
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", os.Getpid())
	return conn, conn.Object(name, "/StatusNotifierItem"), name, nil
}

// readTrayTitle reads the title of this process's StatusNotifierItem back
// over the session bus, as a panel reads it.
func readTrayTitle(ctx context.Context) (string, error) {
	conn, obj, name, err := trayItem(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	v, err := obj.GetProperty("org.kde.StatusNotifierItem.Title")
	if err != nil {
		return "", fmt.Errorf("DBus: %s Title: %w", name, err)
	}
	s, ok := v.Value().(string)
	if !ok {
		return "", fmt.Errorf("DBus: %s Title is a %T", name, v.Value())
	}
	return s, nil
}

// readTrayMenu reads the labels of the menu's top entries over
// com.canonical.dbusmenu.
func readTrayMenu(ctx context.Context) ([]string, error) {
	conn, _, name, err := trayItem(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var rev uint32
	var root struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	if err := conn.Object(name, "/StatusNotifierItem/menu").CallWithContext(ctx, "com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(1), []string{"label"}).Store(&rev, &root); err != nil {
		return nil, fmt.Errorf("DBus: GetLayout: %w", err)
	}
	var labels []string
	for _, c := range root.Children {
		var item struct {
			ID       int32
			Props    map[string]dbus.Variant
			Children []dbus.Variant
		}
		if err := dbus.Store([]any{c.Value()}, &item); err != nil {
			continue
		}
		if l, ok := item.Props["label"].Value().(string); ok && l != "" {
			labels = append(labels, l)
		}
	}
	return labels, nil
}

// nativeChecks: the main menu, the dialogs' focus and the notifications'
// permission are macOS's; Linux has none of them to check.
func (a *App) nativeChecks(ctx context.Context) []selftest.Check {
	cs := []selftest.Check{
		withRule(selftest.Skipf(checkMenuEdit, "macOS only: zenity's GTK dialogs bring their own editing keys"), "macOS: the main menu's Edit submenu"),
		withRule(selftest.Skipf(checkDialogFocus, "macOS only: zenity's dialogs are GTK windows the desktop focuses"), "macOS: a dialog takes the keyboard"),
		withRule(selftest.Skipf(checkNotifyAuth, "macOS only: the desktop shows notifications without asking"), "macOS: UNUserNotificationCenter's authorisation"),
	}
	// The desktop's pieces, as doctor lists them: each found, or skipped
	// with what stops working without it.
	for _, d := range desktopChecks(ctx) {
		name := "desktop." + strings.NewReplacer(" ", "-", ",", "").Replace(d.Name)
		c := selftest.Passf(name, "%s", d.found)
		if !d.OK {
			c = selftest.Skipf(name, "missing (%s); without it: %s", d.found, d.breaks)
		}
		cs = append(cs, withRule(c, "Linux desktop: "+d.Name+" is there (doctor lists the same)"))
	}
	return cs
}

func withRule(c selftest.Check, rule string) selftest.Check { c.Rule = rule; return c }

// notificationsName is the notification server's name on the session bus
// (the Desktop Notifications Specification).
const notificationsName = "org.freedesktop.Notifications"

// notifyServer says whether the session bus has a notification server,
// for a notification that could not be posted.
func notifyServer(ctx context.Context) string {
	conn, err := dbus.ConnectSessionBus(dbus.WithContext(ctx))
	if err != nil {
		return notifyServerWords(false, fmt.Errorf("DBus: connect to the session bus: %w", err))
	}
	defer conn.Close()
	var owned bool
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, notificationsName).Store(&owned); err != nil {
		return notifyServerWords(false, fmt.Errorf("DBus: NameHasOwner %s: %w", notificationsName, err))
	}
	return notifyServerWords(owned, nil)
}

// notifyServerWords words what notifyServer found.
func notifyServerWords(owned bool, err error) string {
	switch {
	case err != nil:
		return fmt.Sprintf("no notification server could be asked for (%v)", err)
	case !owned:
		return "no notification server: nothing owns " + notificationsName + " on the session bus (the desktop's notification daemon, such as dunst, mako or xfce4-notifyd, is not running)"
	}
	return "the notification server " + notificationsName + " is on the session bus, and refused it"
}

// notifySkipped: on Linux a notice that could not be shown is a failure.
func notifySkipped(err error) (string, bool) { return "", false }

// loginCheck reads the XDG autostart entry.
func loginCheck(ctx context.Context, tg cocoa.Toggle) selftest.Check {
	it, ok := tg.(*login.Item)
	if !ok {
		return selftest.Failf(checkLoginService, "the login item is a %T", tg)
	}
	st, err := it.Status(ctx)
	if err != nil {
		return selftest.Failf(checkLoginService, "%v", err)
	}
	if st.Enabled {
		return selftest.Passf(checkLoginService, "on: %s starts %s", st.Path, st.Program)
	}
	return selftest.Passf(checkLoginService, "off: no %s", st.Path)
}

// sessionWiring: on Linux the guard is driven by signals and logind, not
// by a native side to read back.
func sessionWiring(ctx context.Context) ([]string, string) {
	return nil, "SIGTERM and logind's sleep signal drive the same guard"
}

// systemRelease is the kernel's release.
func systemRelease(ctx context.Context) string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return "Linux " + unix.ByteSliceToString(u.Release[:])
}
