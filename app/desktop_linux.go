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
// Name, Found and Breaks are English (--json, selftest's report); name,
// found and breaks are what they were made from, said in the user's
// language when doctor prints them.
type desktopCheck struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Found  string `json:"found"`
	Breaks string `json:"without_it"`

	name, found, breaks text
}

// newDesktopCheck is a piece of the desktop and what breaks without it.
func newDesktopCheck(name, breaks text) desktopCheck {
	return desktopCheck{Name: name.String(), Breaks: breaks.String(), name: name, breaks: breaks}
}

// find records whether the piece is there, and what was found.
func (c *desktopCheck) find(ok bool, found text) { c.OK, c.Found, c.found = ok, found.String(), found }

// polkitPolicy is where `make install` puts RAMBar's polkit actions.
const polkitPolicy = "/usr/share/polkit-1/actions/app.rambar.policy"

// desktopChecks looks at what the menu-bar app and the mounts need on a
// Linux desktop: administrator rights (root, or pkexec and its polkit
// action), the session bus, a tray host on it, zenity, a notification
// server, xdg-open.
func desktopChecks(ctx context.Context) []desktopCheck {
	out := []desktopCheck{adminCheck()}
	bus := newDesktopCheck(msg("session bus"), msg("the menu-bar app: 'rambar' with no command cannot start (the CLI works without it)"))
	conn, err := sessionBus()
	if err != nil {
		bus.find(false, msg("none: %v", err))
	} else {
		defer conn.Close()
		bus.find(true, msg("%s", os.Getenv("DBUS_SESSION_BUS_ADDRESS")))
	}
	out = append(out, bus)
	owner := func(name string) (bool, text) {
		if conn == nil {
			return false, msg("no session bus to look on")
		}
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		var has bool
		if err := conn.BusObject().CallWithContext(c, "org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has); err != nil {
			return false, msg("could not ask the bus: %v", err)
		}
		if !has {
			return false, msg("nothing owns %s on the session bus", name)
		}
		return true, msg("%s", name)
	}
	host := newDesktopCheck(msg("tray host"), msg("the menu-bar icon: 'rambar' waits 15 s for a panel with a system tray, then exits 7 (KDE, XFCE and LXQt have one; GNOME needs the AppIndicator extension)"))
	host.find(owner("org.kde.StatusNotifierWatcher"))
	out = append(out, host)
	out = append(out, toolCheck("zenity", msg("%s", "zenity"), msg("the menu's windows: Custom… and Edit Presets… are hidden, results come as notifications only, and Quit leaves the disks mounted without asking (Debian and Ubuntu: apt install zenity)")))
	notes := newDesktopCheck(msg("notification server"), msg("the menu's notifications (a failed action, a save that failed, a folder's conflicts): shown in a zenity window instead, or only in RAMBar's log (a desktop runs one; else dunst, mako or xfce4-notifyd)"))
	notes.find(owner(tray.NotificationsName))
	out = append(out, notes)
	out = append(out, toolCheck("xdg-open", msg("%s", "xdg-open"), msg("Open and Open Chart in the menu, which then say it is missing (Debian and Ubuntu: apt install xdg-utils)")))
	zram := newDesktopCheck(msg("%s", "zramctl, mkfs.ext4"), msg("--fs zram (compressed) disks; tmpfs disks need neither (Debian and Ubuntu: util-linux, e2fsprogs)"))
	if run.Has("zramctl") && run.Has("mkfs.ext4") {
		zram.find(true, msg("both installed"))
	} else {
		zram.find(false, msg("missing"))
	}
	return append(out, zram)
}

// adminCheck is how disks are mounted: as root, or through pkexec (with
// RAMBar's polkit action or without).
func adminCheck() desktopCheck {
	admin := newDesktopCheck(msg("administrator rights"), msg("making and ejecting disks: no disk can be made or ejected (run RAMBar with sudo, or install polkit's pkexec)"))
	switch _, polErr := os.Stat(polkitPolicy); {
	case os.Geteuid() == 0:
		admin.find(true, msg("running as root: mounts directly"))
	case run.Has("pkexec") && polErr == nil:
		admin.find(true, msg("pkexec: each mount and eject asks for an administrator's password (RAMBar's polkit action is installed: the prompt names RAMBar, and one answer holds for a few minutes)"))
	case run.Has("pkexec"):
		admin.find(true, msg("pkexec: each mount and eject asks for an administrator's password (no %s: each step may ask again; 'sudo make install' installs it)", polkitPolicy))
	default:
		admin.find(false, msg("not root, and pkexec is not installed (Debian and Ubuntu: apt install pkexec, or policykit-1 on older ones)"))
	}
	return admin
}

// toolCheck is a program the menu uses: its path when installed.
func toolCheck(tool string, name, breaks text) desktopCheck {
	c := newDesktopCheck(name, breaks)
	if p, err := run.Resolve(tool); err == nil {
		c.find(true, msg("%s", p))
	} else {
		c.find(false, msg("not installed"))
	}
	return c
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
