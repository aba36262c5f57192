package login

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rambar/internal/run/runtest"
)

// fakeLaunchd is a stateful fake of launchctl's gui domain for one job,
// answering with the messages and exit codes in
// /work/shared/reference/macos/launchd.md §2a.
type fakeLaunchd struct {
	t         *testing.T
	loaded    bool
	noSession bool // an SSH login: no gui/UID domain (error 125)
	busy      int  // bootstraps that answer 5 before one works
	async     bool // a bootstrap that answers 5 has loaded the job anyway
	refuse    int  // when not 0, bootstrap fails with this error number
	teardown  int  // after a bootout, this many prints still find the old job
	dyingCode int  // what bootstrap answers while the old job is torn down (37 or 5)
	busy37    int  // bootstraps that answer 37 before one works
	disabled  bool // `launchctl disable` was run: bootstrap answers 5 until enabled
	dying     int
	calls     []string
}

const fakeService = "gui/501/" + Label

func (f *fakeLaunchd) run(argv []string, _ string) runtest.Reply {
	if len(argv) < 3 || argv[0] != "launchctl" {
		f.t.Errorf("unexpected call %q", argv)
		return runtest.Reply{Exit: 127}
	}
	f.calls = append(f.calls, argv[1])
	switch argv[1] {
	case "print":
		if argv[2] != fakeService {
			f.t.Errorf("print %q", argv[2])
		}
		if f.dying > 0 {
			f.dying-- // the old job, still being torn down
			return runtest.Reply{Stdout: fakeService + " = {\n\tactive count = 0\n\tstate = not running\n}\n"}
		}
		if !f.loaded {
			return runtest.Reply{Stderr: "Could not find service \"" + Label + "\" in domain for user gui: 501\n", Exit: 113}
		}
		return runtest.Reply{Stdout: fakeService + " = {\n\tactive count = 1\n\tstate = running\n\tpid = 71611\n}\n"}
	case "bootstrap":
		if len(argv) != 4 || argv[2] != "gui/501" {
			f.t.Errorf("bootstrap %q", argv)
		}
		if f.noSession {
			return runtest.Reply{Stderr: "Bootstrap failed: 125: Domain does not support specified action\n", Exit: 125}
		}
		if f.refuse != 0 {
			return runtest.Reply{Stderr: "Bootstrap failed: 1: Operation not permitted\n", Exit: f.refuse}
		}
		if _, err := os.Stat(argv[3]); err != nil {
			f.t.Errorf("bootstrap of a missing file %s", argv[3])
		}
		if f.dying > 0 {
			if f.dyingCode == 37 {
				return runtest.Reply{Stderr: "Bootstrap failed: 37: Operation already in progress\n", Exit: 37}
			}
			return runtest.Reply{Stderr: "Bootstrap failed: 5: Input/output error\n", Exit: 5}
		}
		if f.busy37 > 0 {
			f.busy37--
			return runtest.Reply{Stderr: "Bootstrap failed: 37: Operation already in progress\n", Exit: 37}
		}
		if f.disabled {
			return runtest.Reply{Stderr: "Bootstrap failed: 5: Input/output error\n", Exit: 5}
		}
		if f.loaded || f.busy > 0 {
			f.busy--
			if f.async {
				f.loaded = true
			}
			return runtest.Reply{Stderr: "Bootstrap failed: 5: Input/output error\n", Exit: 5}
		}
		f.loaded = true
		return runtest.Reply{}
	case "bootout":
		if argv[2] != fakeService {
			f.t.Errorf("bootout %q", argv[2])
		}
		if f.noSession {
			return runtest.Reply{Stderr: "Boot-out failed: 125: Domain does not support specified action\n", Exit: 125}
		}
		if !f.loaded {
			return runtest.Reply{Stderr: "Boot-out failed: 3: No such process\n", Exit: 3}
		}
		f.loaded = false
		f.dying = f.teardown // bootout returns before launchd has torn the job down
		return runtest.Reply{}
	case "enable":
		if argv[2] != fakeService {
			f.t.Errorf("enable %q", argv[2])
		}
		f.disabled = false
		return runtest.Reply{}
	}
	f.t.Errorf("unexpected launchctl verb %q", argv)
	return runtest.Reply{Exit: 64}
}

const macExe = "/Applications/RAMBar.app/Contents/MacOS/rambar"

func TestLaunchAgentFlows(t *testing.T) {
	tests := []struct {
		name      string
		fake      fakeLaunchd
		oldExe    string // an agent file already there, starting this program
		self      bool   // this process is the agent
		on        bool
		wantCalls string
		wantErr   string // "" for success
		wantFile  string // program in the file afterwards; "" for no file
		wantLoad  bool
	}{
		{name: "on, fresh", on: true, wantCalls: "print bootstrap", wantFile: macExe, wantLoad: true},
		{name: "on, already on", fake: fakeLaunchd{loaded: true}, oldExe: macExe, on: true, wantCalls: "print", wantFile: macExe, wantLoad: true},
		{name: "on, stale file loaded", fake: fakeLaunchd{loaded: true}, oldExe: "/Users/ada/Downloads/RAMBar.app/Contents/MacOS/rambar", on: true,
			wantCalls: "print bootout print bootstrap", wantFile: macExe, wantLoad: true},
		// bootout is asynchronous: print still finds the old job and bootstrap
		// answers 5 (or 37) until it is gone; that 5 is not taken for success.
		{name: "on, stale file, old job torn down slowly (5)", fake: fakeLaunchd{loaded: true, teardown: 3, dyingCode: 5},
			oldExe: "/Users/ada/Downloads/RAMBar.app/Contents/MacOS/rambar", on: true,
			wantCalls: "print bootout print print print print bootstrap", wantFile: macExe, wantLoad: true},
		{name: "on, stale file, old job torn down slowly (37)", fake: fakeLaunchd{loaded: true, teardown: 1, dyingCode: 37},
			oldExe: "/Users/ada/Downloads/RAMBar.app/Contents/MacOS/rambar", on: true,
			wantCalls: "print bootout print print bootstrap", wantFile: macExe, wantLoad: true},
		{name: "on, 37 while launchd finishes", fake: fakeLaunchd{busy37: 2}, on: true, wantCalls: "print bootstrap bootstrap bootstrap", wantFile: macExe, wantLoad: true},
		{name: "on, service disabled with launchctl disable", fake: fakeLaunchd{disabled: true}, on: true,
			wantCalls: "print bootstrap print enable bootstrap", wantFile: macExe, wantLoad: true},
		{name: "on, 5 but loaded async", fake: fakeLaunchd{busy: 1, async: true}, on: true, wantCalls: "print bootstrap print", wantFile: macExe, wantLoad: true},
		{name: "on, 5 then works", fake: fakeLaunchd{busy: 1}, on: true, wantCalls: "print bootstrap print enable bootstrap", wantFile: macExe, wantLoad: true},
		{name: "on, 5 twice", fake: fakeLaunchd{busy: 2}, on: true, wantCalls: "print bootstrap print enable bootstrap print",
			wantErr: "Bootstrap failed: 5: Input/output error"},
		{name: "on, refused: old file put back", fake: fakeLaunchd{refuse: 1}, oldExe: "/Applications/Old.app/Contents/MacOS/rambar", on: true,
			wantCalls: "print bootstrap", wantErr: "Operation not permitted", wantFile: "/Applications/Old.app/Contents/MacOS/rambar"},
		{name: "on, no GUI session", fake: fakeLaunchd{noSession: true}, on: true, wantCalls: "print bootstrap", wantErr: "no GUI login session", wantFile: macExe},
		{name: "on, from the agent itself", fake: fakeLaunchd{loaded: true}, oldExe: "/Applications/Old.app/Contents/MacOS/rambar", self: true, on: true,
			wantCalls: "", wantFile: macExe, wantLoad: true},
		{name: "off, loaded", fake: fakeLaunchd{loaded: true}, oldExe: macExe, wantCalls: "bootout"},
		{name: "off, not loaded", oldExe: macExe, wantCalls: "bootout"},
		{name: "off, already off", wantCalls: "bootout"},
		{name: "off, no GUI session", fake: fakeLaunchd{noSession: true}, oldExe: macExe, wantCalls: "bootout"},
		{name: "off, from the agent itself", fake: fakeLaunchd{loaded: true}, oldExe: macExe, self: true, wantCalls: "", wantLoad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			f := tt.fake
			f.t = t
			e := map[string]string{"HOME": home}
			if tt.self {
				e["XPC_SERVICE_NAME"] = Label
			}
			it, err := New("darwin", env(e), macExe, 501, runtest.Func(f.run))
			if err != nil {
				t.Fatal(err)
			}
			it.wait = func(context.Context, time.Duration) error { return nil }
			if tt.oldExe != "" {
				data, _ := agentPlist(tt.oldExe)
				os.MkdirAll(it.Dir, 0o755)
				os.WriteFile(it.Path(), data, 0o644)
			}
			err = it.Set(context.Background(), tt.on)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("Set(%v): %v", tt.on, err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Set(%v) = %v, want %q", tt.on, err, tt.wantErr)
			}
			if tt.fake.noSession && tt.on && !errors.Is(err, ErrNoSession) {
				t.Errorf("not ErrNoSession: %v", err)
			}
			if got := strings.Join(f.calls, " "); got != tt.wantCalls {
				t.Errorf("launchctl calls %q, want %q", got, tt.wantCalls)
			}
			f.calls = nil
			st, err := it.Status(context.Background())
			if err != nil {
				t.Fatalf("Status: %v", err)
			}
			if st.Program != tt.wantFile || st.Enabled != (tt.wantFile != "") {
				t.Errorf("Status = %+v, want program %q", st, tt.wantFile)
			}
			if st.Loaded == nil || *st.Loaded != tt.wantLoad || f.loaded != tt.wantLoad {
				t.Errorf("loaded: status %v, fake %v, want %v", st.Loaded, f.loaded, tt.wantLoad)
			}
			if tt.wantFile != "" {
				if fi, err := os.Stat(it.Path()); err != nil || fi.Mode().Perm() != 0o644 {
					t.Errorf("agent file: %v %v", fi, err)
				}
			}
			if ents, _ := os.ReadDir(it.Dir); len(ents) > 1 {
				t.Errorf("stray files in LaunchAgents: %v", ents)
			}
		})
	}
}

// TestLaunchAgentRoundTrip: on, off, on again on one fake Mac, and a broken
// agent file reported rather than taken for "off".
func TestLaunchAgentRoundTrip(t *testing.T) {
	home := t.TempDir()
	f := &fakeLaunchd{t: t}
	it, _ := New("darwin", env(map[string]string{"HOME": home}), macExe, 501, runtest.Func(f.run))
	ctx := context.Background()
	for i, on := range []bool{true, false, true, true, false, false} {
		if err := it.Set(ctx, on); err != nil {
			t.Fatalf("step %d Set(%v): %v", i, on, err)
		}
		before := len(f.calls)
		if got, err := it.Enabled(ctx); err != nil || got != on || f.loaded != on {
			t.Fatalf("step %d: Enabled = %v, %v; loaded %v; want %v", i, got, err, f.loaded, on)
		}
		if len(f.calls) != before {
			t.Errorf("Enabled ran launchctl: %v", f.calls[before:])
		}
	}
	os.MkdirAll(it.Dir, 0o755)
	os.WriteFile(filepath.Join(it.Dir, Label+".plist"), []byte("<plist><dict><key>Label"), 0o644)
	if _, err := it.Enabled(ctx); err == nil || !strings.Contains(err.Error(), "not a launch agent plist") {
		t.Errorf("broken file: %v", err)
	}
}
