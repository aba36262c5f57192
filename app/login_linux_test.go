package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoginCLI drives `rambar login` against a real XDG autostart folder.
func TestLoginCLI(t *testing.T) {
	p := newPresetApp(t)
	cfg := t.TempDir()
	p.Getenv = func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return cfg
		}
		return ""
	}
	entry := filepath.Join(cfg, "autostart", "rambar.desktop")
	steps := []struct {
		args []string
		code int
		out  string
		file bool
	}{
		{[]string{"login", "status"}, 0, "off: RAMBar does not start at login", false},
		{[]string{"login", "on"}, 0, "RAMBar starts at login (" + entry + ")", true},
		{[]string{"login", "status"}, 0, "on: " + entry + " starts ", true},
		{[]string{"login", "off"}, 0, "RAMBar no longer starts at login.", false},
		{[]string{"login", "off"}, 0, "RAMBar no longer starts at login.", false},
		{[]string{"login"}, exitUsage, "rambar login on|off|status", false},
		{[]string{"login", "maybe"}, exitUsage, "rambar login on|off|status", false},
	}
	for _, s := range steps {
		code, out, errOut := p.run(s.args...)
		if code != s.code || !strings.Contains(out+errOut, s.out) {
			t.Errorf("rambar %q: exit %d, %q %q; want %d, %q", s.args, code, out, errOut, s.code, s.out)
		}
		if _, err := os.Stat(entry); (err == nil) != s.file {
			t.Errorf("after %q: entry exists = %v, want %v", s.args, err == nil, s.file)
		}
	}
	p.run("login", "on")
	data, _ := os.ReadFile(entry)
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	if !strings.Contains(string(data), "\nTryExec="+exe+"\n") {
		t.Errorf("entry does not start this program (%s):\n%s", exe, data)
	}
	code, out, _ := p.run("login", "status", "--json")
	var st struct {
		Version int    `json:"version"`
		Enabled bool   `json:"enabled"`
		Path    string `json:"path"`
		Program string `json:"program"`
		Stale   bool   `json:"stale"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 || st.Version != 1 || !st.Enabled || st.Path != entry || st.Program != exe || st.Stale {
		t.Errorf("status --json: exit %d, %v: %s", code, err, out)
	}
}

// TestLoginTrayAPI: the two calls the tray's checkbox uses.
func TestLoginTrayAPI(t *testing.T) {
	p := newPresetApp(t)
	cfg := t.TempDir()
	p.Getenv = func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return cfg
		}
		return ""
	}
	ctx := context.Background()
	for _, on := range []bool{true, false, true} {
		if err := p.SetLogin(ctx, on); err != nil {
			t.Fatal(err)
		}
		got, err := p.LoginEnabled(ctx)
		if err != nil || got != on {
			t.Errorf("after SetLogin(%v): LoginEnabled = %v, %v", on, got, err)
		}
		if _, err := os.Stat(filepath.Join(cfg, "autostart", "rambar.desktop")); (err == nil) != on {
			t.Errorf("after SetLogin(%v): file exists = %v", on, err == nil)
		}
	}
}
