package login

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"howett.net/plist"

	"rambar/internal/run/runtest"
)

// fakeManager is systemctl --user's answers for one user manager, or none
// (down: "Failed to connect to bus").
type fakeManager struct {
	t      *testing.T
	down   bool
	active bool
	calls  []string
}

func (f *fakeManager) run(argv []string, _ string) runtest.Reply {
	if len(argv) < 3 || argv[0] != "systemctl" || argv[1] != "--user" {
		f.t.Errorf("unexpected call %q", argv)
		return runtest.Reply{Exit: 127}
	}
	f.calls = append(f.calls, strings.Join(argv[2:], " "))
	if f.down {
		return runtest.Reply{Stderr: "Failed to connect to bus: No medium found\n", Exit: 1}
	}
	switch argv[2] {
	case "restart":
		f.active = true
	case "stop":
		f.active = false
	case "is-active":
		if f.active {
			return runtest.Reply{Stdout: "active\n"}
		}
		return runtest.Reply{Stdout: "inactive\n", Exit: 3}
	}
	return runtest.Reply{}
}

const unitExe = "/opt/RAM Bar/bin/rambar"

// TestHeadlessService: on writes the unit and enables it (the link
// systemctl enable makes) and starts it; status says so; off stops it and
// removes both; without a user manager the file and link are written and
// the error says it starts with the manager.
func TestHeadlessService(t *testing.T) {
	cfg := t.TempDir()
	f := &fakeManager{t: t}
	it, err := NewHeadless("linux", env(map[string]string{"XDG_CONFIG_HOME": cfg}), unitExe, 1000, runtest.Func(f.run), []string{"RAMBAR_HOME=/srv/ram bar"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if it.Path() != filepath.Join(cfg, "systemd", "user", "rambar.service") {
		t.Errorf("path %s", it.Path())
	}
	if err := it.Set(ctx, true); err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.calls, "; ") != "daemon-reload; restart rambar.service" {
		t.Errorf("on ran %q", f.calls)
	}
	st, err := it.Status(ctx)
	if err != nil || !st.Enabled || st.Stale || st.Program != unitExe || st.Kind != "headless" || st.Active == nil || !*st.Active {
		t.Errorf("status after on: %+v %v", st, err)
	}
	if target, err := os.Readlink(filepath.Join(cfg, "systemd", "user", "default.target.wants", "rambar.service")); err != nil || target != "../rambar.service" {
		t.Errorf("enable link: %q %v", target, err)
	}
	f.calls = nil
	if err := it.Set(ctx, false); err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.calls, "; ") != "stop rambar.service; daemon-reload" || f.active {
		t.Errorf("off ran %q", f.calls)
	}
	if ents, _ := os.ReadDir(it.Dir); len(ents) != 1 { // the empty wants folder
		t.Errorf("left %v", ents)
	}
	if on, _ := it.Enabled(ctx); on {
		t.Error("enabled after off")
	}
	f.down = true
	if err := it.Set(ctx, true); !errors.Is(err, ErrNoManager) {
		t.Errorf("on without a manager: %v", err)
	}
	st, _ = it.Status(ctx)
	if !st.Enabled || st.Active != nil {
		t.Errorf("status without a manager: %+v", st)
	}
	if err := it.Set(ctx, false); err != nil {
		t.Errorf("off without a manager: %v", err)
	}
}

// TestUnitFile: the unit starts `EXE agent` with its environment, quoted
// as systemd reads it, and the program is read back from it.
func TestUnitFile(t *testing.T) {
	for _, exe := range []string{"/usr/bin/rambar", unitExe, `/odd/100%/$HOME/"q"\b/rambar`} {
		u := string(unitFile(exe, []string{"RAMBAR_HOME=/srv/ram bar"}))
		if got := unitProgram([]byte(u)); got != exe {
			t.Errorf("%s: read back %q from\n%s", exe, got, u)
		}
		for _, want := range []string{" agent\n", `Environment="RAMBAR_HOME=/srv/ram bar"`, "Restart=on-failure\n", "WantedBy=default.target\n", "KillMode=mixed\n", "TimeoutStopSec=60\n"} {
			if !strings.Contains(u, want) {
				t.Errorf("%s: lacks %q:\n%s", exe, want, u)
			}
		}
	}
}

// TestUnitVerifies: systemd-analyze verify takes the unit for this very
// test binary without a word (an unknown key, a bad value or a missing
// program would be said).
func TestUnitVerifies(t *testing.T) {
	tool, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Fatal("systemd-analyze is needed (.ci/tools: systemd)")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "ram bar", "rambar")
	os.MkdirAll(filepath.Dir(exe), 0o755)
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(dir, UnitName)
	os.WriteFile(unit, unitFile(exe, []string{"RAMBAR_HOME=/srv/ram bar"}), 0o644)
	rt := filepath.Join(dir, "run")
	os.Mkdir(rt, 0o700)
	cmd := exec.Command(tool, "verify", "--user", unit)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+rt, "SYSTEMD_LOG_LEVEL=notice")
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify --user: %v\n%s", err, out)
	}
	os.WriteFile(unit, []byte(strings.Replace(string(unitFile(exe, nil)), "Restart=on-failure", "Restart=sometimes", 1)), 0o644)
	if out, _ := exec.Command(tool, "verify", unit).CombinedOutput(); !strings.Contains(string(out), "restart") {
		t.Errorf("a bad value was not said: %s", out)
	}
}

// TestHeadlessLaunchAgent: on macOS the headless agent is a LaunchAgent
// of its own label that runs `rambar agent` in any session and is started
// again after a crash.
func TestHeadlessLaunchAgent(t *testing.T) {
	it, err := NewHeadless("darwin", env(map[string]string{"HOME": "/Users/me", "XPC_SERVICE_NAME": HeadlessLabel}), macExe, 501, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if it.Path() != "/Users/me/Library/LaunchAgents/app.rambar.agent.plist" || !it.SelfIsAgent || it.service() != "gui/501/app.rambar.agent" {
		t.Errorf("path %s, self %v, service %s", it.Path(), it.SelfIsAgent, it.service())
	}
	b, err := it.plist()
	if err != nil {
		t.Fatal(err)
	}
	var a agent
	if _, err := plist.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	if a.Label != HeadlessLabel || strings.Join(a.ProgramArguments, " ") != macExe+" agent" || !a.RunAtLoad ||
		a.LimitLoadToSessionType != "" || a.KeepAlive == nil || a.KeepAlive.SuccessfulExit || a.ExitTimeOut != exitTimeOut {
		t.Errorf("plist %+v", a)
	}
}
