package tray

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rambar/internal/testbus"
	"rambar/ramdisk"

	"github.com/godbus/dbus/v5"
)

// noLaunch puts a dbus-launch on PATH that only records that it ran, and
// returns the file it would write.
func noLaunch(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mark := filepath.Join(dir, "launched")
	script := fmt.Sprintf("#!/bin/sh\necho ran > %q\nexit 1\n", mark)
	if err := os.WriteFile(filepath.Join(dir, "dbus-launch"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return mark
}

func TestCheckHostNeverAutolaunches(t *testing.T) {
	for _, addr := range []string{"", "autolaunch:"} {
		mark := noLaunch(t)
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
		err := checkHost(context.Background(), time.Second, t.Logf)
		if !errors.Is(err, ramdisk.ErrUnsupported) {
			t.Errorf("address %q: err = %v, want ErrUnsupported", addr, err)
		}
		if _, serr := os.Stat(fmt.Sprintf("/run/user/%d/bus", os.Getuid())); serr != nil && (err == nil || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS is not set")) {
			t.Errorf("address %q: error %v does not say the bus address is missing", addr, err)
		}
		if _, err := os.Stat(mark); err == nil {
			t.Errorf("address %q: dbus-launch was run", addr)
		}
	}
}

func TestCheckHostNoWatcher(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", testbus.Private(t))
	err := checkHost(context.Background(), 200*time.Millisecond, t.Logf)
	if !errors.Is(err, ramdisk.ErrUnsupported) || !strings.Contains(err.Error(), "org.kde.StatusNotifierWatcher") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v, want one line naming org.kde.StatusNotifierWatcher", err)
	}
}

func TestCheckHostWatcherPresentOrLater(t *testing.T) {
	addr := testbus.Private(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	waiting := make(chan struct{}, 1)
	logf := func(format string, args ...any) {
		if strings.HasPrefix(format, "no system tray yet") {
			waiting <- struct{}{}
		}
	}
	done := make(chan error, 1)
	go func() { done <- checkHost(context.Background(), time.Minute, logf) }()
	<-waiting
	panel, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer panel.Close()
	if r, err := panel.RequestName(watcherName, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("RequestName = %v, %v", r, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("watcher appeared later: %v", err)
	}
	// Already there: no wait at all.
	if err := checkHost(context.Background(), time.Nanosecond, t.Fatalf); err != nil {
		t.Fatalf("watcher present: %v", err)
	}
}

func TestCheckHostCancelled(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", testbus.Private(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := checkHost(ctx, time.Minute, t.Logf); !errors.Is(err, ramdisk.ErrCancelled) {
		t.Fatalf("err = %v, want ErrCancelled", err)
	}
}
