//go:build linux

package main

import (
	"os"
	"testing"
	"time"

	"rambar/tray"
)

// TestTrayOffersPresetEditor checks over the real DBus menu that the preset
// editor is offered when the dialog tool is installed (and hidden when not).
func TestTrayOffersPresetEditor(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the tray end-to-end test mounts tmpfs and must run as root (as CI does)")
	}
	a := startTray(t)
	n := a.waitMenu("the Presets submenu", 10*time.Second, func(n dbusNode) bool { _, ok := n.find("New RAM Disk"); return ok })
	presets, hasPresets := n.find("Presets")
	_, hasEdit := presets.find("Edit Presets…")
	if want := tray.DialogsAvailable(); hasPresets != want || hasEdit != want {
		t.Errorf("dialogs available %v, but Presets %v and Edit Presets… %v in the menu:\n%s", want, hasPresets, hasEdit, n.text(""))
	}
}
