//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"

	"rambar/ramdisk"
)

// TestSingleInstanceNeverFollowsALink: the lock the menu-bar app and the
// agent hold writes their pid; a link planted at its name (the settings
// folder is another user's, run as root) is refused, and the file it names
// is left as it was (it was truncated and given the pid).
func TestSingleInstanceNeverFollowsALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "precious")
	os.WriteFile(victim, []byte("root's own\n"), 0o600)
	a := &App{Paths: ramdisk.Paths{Settings: filepath.Join(dir, "settings.plist")}}
	if err := os.Symlink(victim, a.lockPath()); err != nil {
		t.Fatal(err)
	}
	if release, err := a.singleInstance(); err == nil {
		release()
		t.Error("the lock was taken through a link")
	}
	if b, _ := os.ReadFile(victim); string(b) != "root's own\n" {
		t.Errorf("the file the link named now holds %q", b)
	}
}
