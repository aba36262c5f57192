package login

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestLinuxAutostartLaunches has GLib, as GNOME and Xfce do, read the entry
// and start the program, from a folder whose name needs every kind of
// quoting the spec has.
func TestLinuxAutostartLaunches(t *testing.T) {
	gio, err := exec.LookPath("gio")
	if err != nil {
		t.Fatal("gio is needed to check the entry the way desktops read it: apt-get install libglib2.0-bin")
	}
	dir := filepath.Join(t.TempDir(), "RAM Bar's \"$HOME\" `x` \\ (1)")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "rambar")
	out := filepath.Join(t.TempDir(), "argv0")
	script := "#!/bin/sh\nprintf '%s|%s' \"$0\" \"$#\" > " + out + ".tmp && mv " + out + ".tmp " + out + "\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := t.TempDir()
	it, _ := New("linux", env(map[string]string{"XDG_CONFIG_HOME": cfg}), exe, 0, nil)
	if err := it.Set(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gio, "launch", it.Path())
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "XDG_DATA_HOME="+cfg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gio launch: %v: %s", err, b)
	}
	var got []byte
	for ctx.Err() == nil {
		if got, err = os.ReadFile(out); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if string(got) != exe+"|0" {
		t.Errorf("started as %q, want %q with no arguments", got, exe+"|0")
	}
}
