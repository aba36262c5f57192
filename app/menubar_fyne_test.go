//go:build cgo || !darwin

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The macOS menu bar is fyne.io/systray's: cocoa.Prepare readies its
// delegate class before it is set, and the self-test reads the status
// item from that delegate's instance variable. Both names come from fyne's
// Objective-C source, so an upgrade that renames them fails here, on any
// OS, not on a user's Mac.
func TestFyneDelegateNames(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "fyne.io/systray").Output()
	if err != nil {
		t.Fatalf("go list -m fyne.io/systray: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "systray_darwin.m"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`@interface ` + menuBarDelegateClass + `\s*:\s*NSObject\s*<NSApplicationDelegate`).Match(src) {
		t.Errorf("fyne's systray_darwin.m declares no %s application delegate", menuBarDelegateClass)
	}
	if !regexp.MustCompile(`NSStatusItem \*` + statusItemIvar + `;`).Match(src) {
		t.Errorf("fyne's delegate keeps no NSStatusItem in %q", statusItemIvar)
	}
	if regexp.MustCompile(`applicationShouldTerminate`).Match(src) {
		t.Errorf("fyne's delegate answers applicationShouldTerminate: itself now: cocoa.Prepare leaves it alone, so logout no longer waits for the save")
	}
	if !strings.Contains(string(src), "[[NSApplication sharedApplication] setDelegate:owner]") {
		t.Error("fyne no longer sets its delegate in registerSystray: check that Prepare still runs before it")
	}
}
