// Command trayhost is the smallest tray host RAMBar's menu-bar app accepts
// on Linux: it owns org.kde.StatusNotifierWatcher on the session bus (what a
// desktop panel runs) and accepts every item that registers, so the tray can
// run where no panel does, as make bench-tray needs. It prints "ready" once
// it owns the name and runs until it is killed or its standard input closes.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/godbus/dbus/v5"
)

const watcherName = "org.kde.StatusNotifierWatcher"

// watcher answers the two calls systray makes of a StatusNotifierWatcher.
type watcher struct{}

// RegisterStatusNotifierItem accepts an item (the tray's icon and menu).
func (watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	fmt.Fprintf(os.Stderr, "trayhost: item %s%s registered\n", sender, service)
	return nil
}

// RegisterStatusNotifierHost accepts a host.
func (watcher) RegisterStatusNotifierHost(sender dbus.Sender, service string) *dbus.Error {
	return nil
}

func main() {
	if err := serve(); err != nil {
		fmt.Fprintln(os.Stderr, "trayhost:", err)
		os.Exit(1)
	}
}

func serve() error {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("connect to the session bus: %w", err)
	}
	defer conn.Close()
	if err := conn.Export(watcher{}, "/StatusNotifierWatcher", watcherName); err != nil {
		return fmt.Errorf("DBus export: %w", err)
	}
	reply, err := conn.RequestName(watcherName, dbus.NameFlagDoNotQueue)
	if err != nil {
		return fmt.Errorf("DBus RequestName %s: %w", watcherName, err)
	}
	if reply != dbus.RequestNameReplyPrimaryOwner {
		return fmt.Errorf("DBus RequestName %s: another tray host owns it", watcherName)
	}
	fmt.Println("ready")
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(closed)
	}()
	select {
	case <-stop:
	case <-closed:
	}
	return nil
}
