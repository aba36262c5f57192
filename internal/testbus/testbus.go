// Package testbus runs a private DBus session bus for one test (the tray,
// notifications, logind's signals): a dbus-daemon of the test's own,
// killed when the test ends. It is for tests only; nothing else imports
// it.
package testbus

import (
	"bufio"
	"os/exec"
	"strings"
	"testing"
)

// Private starts a session bus for t and returns its address.
func Private(t testing.TB) string {
	t.Helper()
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("dbus-daemon (apt-get install dbus-daemon): %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon: %v", err)
	}
	return strings.TrimSpace(line)
}
