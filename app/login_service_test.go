package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"rambar/darwin/cocoa"
	"rambar/login"
)

// `rambar login` where SMAppService decides, over the fake service.
func TestRunLoginService(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		svc      *cocoa.Fake
		verbs    []string
		json     bool
		want     string
		wantSvc  cocoa.ServiceStatus
		settings int
	}{
		{"on", &cocoa.Fake{}, []string{"on"}, false, "RAMBar starts at login (System Settings › General › Login Items)", cocoa.ServiceEnabled, 0},
		{"needs approval", &cocoa.Fake{NeedsApproval: true}, []string{"on"}, false,
			"RAMBar is a login item now, waiting for you: allow RAMBar in System Settings › General › Login Items", cocoa.ServiceRequiresApproval, 1},
		{"off", &cocoa.Fake{Service: cocoa.ServiceEnabled}, []string{"off"}, false, "RAMBar no longer starts at login.", cocoa.ServiceNotRegistered, 0},
		{"status on", &cocoa.Fake{Service: cocoa.ServiceEnabled}, []string{"status"}, false, "on: RAMBar starts at login (SMAppService: enabled)", cocoa.ServiceEnabled, 0},
		{"status waiting", &cocoa.Fake{Service: cocoa.ServiceRequiresApproval}, []string{"status"}, false,
			"off: RAMBar does not start at login (SMAppService: waiting for approval", cocoa.ServiceRequiresApproval, 0},
		{"status json", &cocoa.Fake{Service: cocoa.ServiceEnabled}, []string{"status"}, true, `"enabled": true,`, cocoa.ServiceEnabled, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			a := &App{Stdout: &out, Stderr: &out}
			for _, v := range c.verbs {
				if err := runLoginService(ctx, a, &cocoa.Login{Service: c.svc}, v, c.json); err != nil {
					t.Fatalf("login %s: %v", v, err)
				}
			}
			if !strings.Contains(out.String(), c.want) {
				t.Errorf("output %q lacks %q", out.String(), c.want)
			}
			if c.svc.Service != c.wantSvc || c.svc.SettingsOpened != c.settings {
				t.Errorf("service %v, settings opened %d; want %v, %d", c.svc.Service, c.svc.SettingsOpened, c.wantSvc, c.settings)
			}
		})
	}
}

// fakeAgent is a LaunchAgent stand-in.
type fakeAgent struct{ on bool }

func (a *fakeAgent) Enabled(context.Context) (bool, error) { return a.on, nil }
func (a *fakeAgent) Set(_ context.Context, on bool) error  { a.on = on; return nil }

// A copy running translocated or from its disk image is refused by `login
// on` and by the tray's checkbox alike (both take loginToggle), on the
// SMAppService path too: nothing is registered, no agent written.
func TestLoginToggleRefusesCopiesThatMove(t *testing.T) {
	getenv := func(k string) string {
		if k == "HOME" {
			return "/Users/me"
		}
		return ""
	}
	for _, exe := range []string{
		"/private/var/folders/xy/T/AppTranslocation/1A2B/d/RAMBar.app/Contents/MacOS/rambar",
		"/Volumes/RAMBar/RAMBar.app/Contents/MacOS/rambar",
	} {
		it, itErr := login.New("darwin", getenv, exe, 501, nil)
		if itErr == nil {
			t.Fatalf("login.New(%s) accepted it", exe)
		}
		svc := &cocoa.Fake{Service: cocoa.ServiceNotFound}
		tg, err := loginToggleOf("darwin", it, itErr, svc, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.Set(context.Background(), true); err == nil || !strings.Contains(err.Error(), "move RAMBar.app to Applications") {
			t.Errorf("%s: Set(true) = %v, want the refusal", exe, err)
		}
		if svc.Registers != 0 {
			t.Errorf("%s: SMAppService registered a copy that moves", exe)
		}
	}
	// From /Applications it is accepted, and registered on "not found".
	it, err := login.New("darwin", getenv, "/Applications/RAMBar.app/Contents/MacOS/rambar", 501, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc := &cocoa.Fake{Service: cocoa.ServiceNotFound}
	tg, _ := loginToggleOf("darwin", it, nil, svc, nil, nil)
	if err := tg.(*cocoa.Login).Service.Register(); err != nil || svc.Registers != 1 {
		t.Errorf("register = %v, %d", err, svc.Registers)
	}
}

// `login status` says why the LaunchAgent is used when SMAppService's
// register failed, from the note the failing `login on` left.
func TestLoginStatusSaysWhyTheAgent(t *testing.T) {
	ctx := context.Background()
	note := fileNote(filepath.Join(t.TempDir(), "data", "login-fallback.txt"))
	svc := &cocoa.Fake{Service: cocoa.ServiceNotFound, RegisterErr: errors.New("Operation not permitted")}
	ag := &fakeAgent{}
	var out bytes.Buffer
	a := &App{Stdout: &out, Stderr: &out}
	if err := runLoginService(ctx, a, &cocoa.Login{Service: svc, Agent: ag, Note: note}, "on", false); err != nil {
		t.Fatal(err)
	}
	if !ag.on || !strings.Contains(out.String(), "a LaunchAgent") || !strings.Contains(out.String(), "Operation not permitted") {
		t.Errorf("login on:\n%s", out.String())
	}
	out.Reset()
	if err := runLoginService(ctx, a, &cocoa.Login{Service: svc, Agent: ag, Note: note}, "status", false); err != nil {
		t.Fatal(err)
	}
	want := "on: RAMBar starts at login through a LaunchAgent (SMAppService: not found)\n  why not SMAppService: SMAppService (status not found) refused to register RAMBar: Operation not permitted\n"
	if out.String() != want {
		t.Errorf("login status:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if err := runLoginService(ctx, a, &cocoa.Login{Service: svc, Agent: ag, Note: note}, "status", true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"way": "LaunchAgent"`) || !strings.Contains(out.String(), `"why": "SMAppService (status not found) refused`) {
		t.Errorf("login status --json:\n%s", out.String())
	}
}
