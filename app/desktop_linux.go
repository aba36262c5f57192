package main

import (
	"context"
	"os"
	"time"

	"github.com/godbus/dbus/v5"

	"rambar/internal/run"
	"rambar/tray"
)

// desktopCheck is one piece of the Linux desktop RAMBar uses, whether this
// session has it, and what stops working without it (doctor, selftest).
type desktopCheck struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Found  string `json:"found"`
	Breaks string `json:"without_it"`
}

// polkitPolicy is where `make install` puts RAMBar's polkit actions.
const polkitPolicy = "/usr/share/polkit-1/actions/app.rambar.policy"

// desktopChecks looks at what the menu-bar app and the mounts need on a
// Linux desktop: administrator rights (root, or pkexec and its polkit
// action), the session bus, a tray host on it, zenity, a notification
// server, xdg-open.
func desktopChecks(ctx context.Context) []desktopCheck {
	var out []desktopCheck
	admin := desktopCheck{Name: "administrator rights", Breaks: "making and ejecting disks: no disk can be made or ejected (run RAMBar with sudo, or install polkit's pkexec)"}
	switch {
	case os.Geteuid() == 0:
		admin.OK, admin.Found = true, "running as root: mounts directly"
	case run.Has("pkexec"):
		admin.OK, admin.Found = true, "pkexec: each mount and eject asks for an administrator's password"
		if _, err := os.Stat(polkitPolicy); err == nil {
			admin.Found += " (RAMBar's polkit action is installed: the prompt names RAMBar, and one answer holds for a few minutes)"
		} else {
			admin.Found += " (no " + polkitPolicy + ": each step may ask again; 'sudo make install' installs it)"
		}
	default:
		admin.Found = "not root, and pkexec is not installed (Debian and Ubuntu: apt install pkexec, or policykit-1 on older ones)"
	}
	out = append(out, admin)
	bus := desktopCheck{Name: "session bus", Breaks: "the menu-bar app: 'rambar' with no command cannot start (the CLI works without it)"}
	conn, err := sessionBus()
	if err != nil {
		bus.Found = "none: " + err.Error()
	} else {
		defer conn.Close()
		bus.OK, bus.Found = true, os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	}
	out = append(out, bus)
	owner := func(name string) (bool, string) {
		if conn == nil {
			return false, "no session bus to look on"
		}
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		var has bool
		if err := conn.BusObject().CallWithContext(c, "org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has); err != nil {
			return false, "could not ask the bus: " + err.Error()
		}
		if !has {
			return false, "nothing owns " + name + " on the session bus"
		}
		return true, name
	}
	host := desktopCheck{Name: "tray host", Breaks: "the menu-bar icon: 'rambar' waits 15 s for a panel with a system tray, then exits 7 (KDE, XFCE and LXQt have one; GNOME needs the AppIndicator extension)"}
	host.OK, host.Found = owner("org.kde.StatusNotifierWatcher")
	out = append(out, host)
	zen := desktopCheck{Name: "zenity", Breaks: "the menu's windows: Custom… and Edit Presets… are hidden, results come as notifications only, and Quit leaves the disks mounted without asking (Debian and Ubuntu: apt install zenity)"}
	if p, err := run.Resolve("zenity"); err == nil {
		zen.OK, zen.Found = true, p
	} else {
		zen.Found = "not installed"
	}
	out = append(out, zen)
	notes := desktopCheck{Name: "notification server", Breaks: "the menu's notifications (a failed action, a save that failed, a folder's conflicts): shown in a zenity window instead, or only in RAMBar's log (a desktop runs one; else dunst, mako or xfce4-notifyd)"}
	notes.OK, notes.Found = owner(tray.NotificationsName)
	out = append(out, notes)
	open := desktopCheck{Name: "xdg-open", Breaks: "Open and Open Chart in the menu, which then say it is missing (Debian and Ubuntu: apt install xdg-utils)"}
	if p, err := run.Resolve("xdg-open"); err == nil {
		open.OK, open.Found = true, p
	} else {
		open.Found = "not installed"
	}
	out = append(out, open)
	zram := desktopCheck{Name: "zramctl, mkfs.ext4", Breaks: "--fs zram (compressed) disks; tmpfs disks need neither (Debian and Ubuntu: util-linux, e2fsprogs)"}
	zram.OK = run.Has("zramctl") && run.Has("mkfs.ext4")
	if zram.OK {
		zram.Found = "both installed"
	} else {
		zram.Found = "missing"
	}
	out = append(out, zram)
	return out
}

// sessionBus connects to the running session bus, never starting one.
func sessionBus() (*dbus.Conn, error) {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "autolaunch:" {
		return nil, errNoBus
	}
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return nil, errNoBus
	}
	if err := conn.Auth(nil); err != nil {
		conn.Close()
		return nil, err
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

type noBus struct{}

func (noBus) Error() string {
	return "DBUS_SESSION_BUS_ADDRESS is not set and no user bus runs (not in a graphical session)"
}

var errNoBus = noBus{}
