//go:build linux

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lastSnapshot matches a save in `rambar info NAME --json`.
var lastSnapshot = regexp.MustCompile(`"last_snapshot": "[^"]+"`)

// TestTraySavesAtSIGTERM is the logout path end to end: launchd (or systemd,
// or kill) sends the running tray SIGTERM; before it exits 0 it saves the
// kept disk, so the file written since is in the store (a restore brings it
// back).
func TestTraySavesAtSIGTERM(t *testing.T) {
	a := startEmptyTray(t)
	a.rambar("create", "Kept", "64M", "--keep")
	disk := filepath.Join(a.root, "Kept")
	t.Cleanup(func() { syscall.Unmount(disk, syscall.MNT_DETACH) })
	notes := filepath.Join(disk, "notes.txt")
	if err := os.WriteFile(notes, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := a.rambar("info", "Kept", "--json"); lastSnapshot.MatchString(out) {
		t.Fatalf("the disk was saved before SIGTERM; the test would prove nothing:\n%s", out)
	}
	a.waitMenu("Kept in the menu", 10*time.Second, func(n dbusNode) bool { _, ok := n.find("• Kept — "); return ok })

	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("the tray did not exit after SIGTERM:\n%s", a.log())
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	if !strings.Contains(a.log(), "rambar: Saving before quitting…") {
		t.Errorf("stderr never said it was saving:\n%s", a.log())
	}
	if !mountedAt(t, disk) {
		t.Fatal("SIGTERM ejected the disk; it should be left mounted")
	}
	if out := a.rambar("info", "Kept", "--json"); !lastSnapshot.MatchString(out) {
		t.Fatalf("after SIGTERM the disk has no save:\n%s", out)
	}
	// What was saved is the file: lose it on the disk, restore, it is back.
	if err := os.Remove(notes); err != nil {
		t.Fatal(err)
	}
	a.rambar("restore", "Kept", "--force")
	if got, err := os.ReadFile(notes); err != nil || string(got) != "keep me" {
		t.Fatalf("after restore notes.txt = %q, %v; want the content written before SIGTERM", got, err)
	}
	a.rambar("eject", "Kept")
	if strings.Contains(a.log(), "panic") || strings.Contains(a.log(), "DATA RACE") {
		t.Errorf("the tray logged trouble:\n%s", a.log())
	}
}
