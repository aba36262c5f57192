//go:build linux

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"rambar/i18n"
)

// TestTrayInThePseudoLocale runs the real menu bar with LANGUAGE=pseudo
// over a private session bus, as a panel sees it (com.canonical.dbusmenu):
// every label arrives accented and whole (its closing mark is there), the
// submenus too, with a real disk in the menu.
func TestTrayInThePseudoLocale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the tray")
	}
	a := startTrayEnv(t, "LANGUAGE=pseudo", "LANG=en_US.UTF-8", "LC_ALL=", "LC_MESSAGES=")
	noDisks := i18n.For(i18n.Pseudo).T("No RAM Disks")
	n := a.waitMenu("the pseudo menu", 10*time.Second, func(n dbusNode) bool { _, ok := n.find(noDisks); return ok })
	canMount := os.Geteuid() == 0
	if canMount {
		// A ready size (the label is a bare size) makes a disk named in the
		// pseudo-locale; its line and submenu come through the catalog too.
		a.click(a.item("1 GiB"))
		n = a.waitMenu("a disk", 15*time.Second, func(n dbusNode) bool { return strings.Contains(n.text(""), " — ") })
		t.Cleanup(func() { unmountUnder(t, a.root) })
	}
	bare := regexp.MustCompile(`^[0-9.,]+ [KMGT]?i?B$`)
	var walk func(n dbusNode)
	count := 0
	walk = func(n dbusNode) {
		for _, c := range n.Children {
			if c.Label != "----" && !bare.MatchString(c.Label) && !strings.HasPrefix(c.Label, "(hidden)") {
				count++
				if !strings.HasPrefix(strings.TrimPrefix(c.Label, "• "), i18n.PseudoOpen) || !strings.HasSuffix(c.Label, i18n.PseudoClose) {
					t.Errorf("label %q did not arrive through the catalog whole", c.Label)
				}
			}
			walk(c)
		}
	}
	walk(n)
	if count < 15 {
		t.Errorf("only %d labels:\n%s", count, n.text(""))
	}
	if canMount {
		if m, _ := filepath.Glob(filepath.Join(a.root, "*")); len(m) != 1 {
			t.Errorf("mounted %v", m)
		}
	}
}
