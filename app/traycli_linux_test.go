//go:build linux

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startEmptyTray starts the menu-bar app as startTray does, for an
// end-to-end test that mounts tmpfs and so runs as root, and waits for
// its empty menu.
func startEmptyTray(t *testing.T) *trayApp {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the tray end-to-end test mounts tmpfs and must run as root (as CI does)")
	}
	a := startTray(t)
	a.waitMenu("empty menu", 10*time.Second, func(n dbusNode) bool { _, ok := n.find("No RAM Disks"); return ok })
	return a
}

// rambar runs the CLI with args in the app's environment and returns what
// it printed; a failure fails the test.
func (a *trayApp) rambar(args ...string) string {
	a.t.Helper()
	return runCLI(a.t, a.bin, a.env, args...)
}

// runCLI runs the rambar binary bin with args in the environment env and
// returns what it printed; a failure fails t.
func runCLI(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rambar %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
