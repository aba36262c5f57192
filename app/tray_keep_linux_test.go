//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestTrayKeepContents: a plain disk made by the CLI offers Keep Contents
// in the real menu (over DBus, on the real use cases); clicking it saves
// the disk at once, and the submenu then offers Save Now instead.
func TestTrayKeepContents(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the tray end-to-end test mounts tmpfs and must run as root (as CI does)")
	}
	a := startTray(t)
	a.waitMenu("empty menu", 10*time.Second, func(n dbusNode) bool { _, ok := n.find("No RAM Disks"); return ok })
	cli := exec.Command(a.bin, "create", "Plain", "64M")
	cli.Env = a.env
	if out, err := cli.CombinedOutput(); err != nil {
		t.Fatalf("rambar create: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		cli := exec.Command(a.bin, "eject", "Plain", "--force", "--no-save")
		cli.Env = a.env
		cli.Run()
	})
	if err := os.WriteFile(filepath.Join(a.root, "Plain", "notes.txt"), []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := a.waitMenu("Plain offers Keep Contents", 3*trayRefresh+5*time.Second, func(n dbusNode) bool {
		p, ok := n.find("Plain — ")
		_, keep := p.find("Keep Contents")
		return ok && keep
	})
	p, _ := n.find("Plain — ")
	if _, ok := p.find("Save Now"); ok {
		t.Errorf("Save Now offered on a plain disk:\n%s", p.text(""))
	}
	keep, _ := p.find("Keep Contents")
	a.click(keep)
	a.waitMenu("Plain kept", 20*time.Second, func(n dbusNode) bool {
		p, ok := n.find("Plain — ")
		_, save := p.find("Save Now")
		_, keep := p.find("Keep Contents")
		return ok && save && !keep
	})
	a.waitLog("notify: Keeping Plain")
	info := exec.Command(a.bin, "info", "Plain", "--json")
	info.Env = a.env
	out, err := info.Output()
	if err != nil || !regexp.MustCompile(`"mode": "keep"`).Match(out) || !regexp.MustCompile(`"last_snapshot": "[^"]+"`).Match(out) {
		t.Fatalf("after Keep Contents, info shows no kept, saved disk: %v\n%s", err, out)
	}
}
