package tray

import (
	"context"
	"strings"
	"testing"
	"time"

	"rambar/internal/testbus"

	"github.com/godbus/dbus/v5"
)

// notificationServer records the Notify calls a desktop's notification
// server would get.
type notificationServer struct{ calls chan []any }

func (s notificationServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.calls <- []any{app, icon, summary, body}
	return 7, nil
}

// TestDesktopNotify: a notice reaches the notification server with RAMBar
// as the application, the title as its summary and the text as its body;
// with no server it fails, naming what is missing.
func TestDesktopNotify(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", testbus.Private(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := DesktopNotify(ctx, "Can't eject Work", "In use by vim"); err == nil || !strings.Contains(err.Error(), "no notification server") {
		t.Fatalf("with no server: %v", err)
	}
	conn, err := dbus.SessionBusPrivate()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Hello(); err != nil {
		t.Fatal(err)
	}
	srv := notificationServer{calls: make(chan []any, 1)}
	if err := conn.Export(srv, "/org/freedesktop/Notifications", NotificationsName); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName(NotificationsName, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", NotificationsName, r, err)
	}
	if err := DesktopNotify(ctx, "Can't eject Work", "In use by vim"); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-srv.calls:
		if got[0] != "RAMBar" || got[1] != "rambar" || got[2] != "Can't eject Work" || got[3] != "In use by vim" {
			t.Errorf("Notify(app, icon, summary, body) = %q", got)
		}
	case <-ctx.Done():
		t.Fatal("the server heard nothing")
	}
}
