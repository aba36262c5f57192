package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"rambar/darwin/cocoa"
	"rambar/i18n"
	"rambar/internal/atomicfile"
	"rambar/internal/run"
	"rambar/login"
)

func init() {
	register(&command{Name: "login", Summary: i18n.N("start RAMBar at login (a LaunchAgent on macOS, XDG autostart on Linux)"),
		Doc: i18n.N("At each login RAMBar starts and mounts the presets marked --auto-mount."),
		Subs: []*command{
			{Name: "on", Summary: i18n.N("start RAMBar at each login"), Flags: []flagSpec{headlessFlag}, Example: "login on\nlogin on --headless", Run: runLoginOn},
			{Name: "off", Summary: i18n.N("no longer start RAMBar at login"), Example: "login off", Run: runLoginOff},
			{Name: "status", Summary: i18n.N("say whether RAMBar starts at login, what it starts, and whether that is this copy"),
				JSON: true, Example: "login status --json", Run: runLoginStatus},
		},
		Example: "login on\nlogin status", Order: 50})
}

// loginItem is this program's login item, read from the App's environment.
func (a *App) loginItem() (*login.Item, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("login item: find this program: %w", err)
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	return login.New(runtime.GOOS, a.Getenv, exe, os.Getuid(), run.System())
}

func runLoginOn(ctx context.Context, a *App, in *input) error {
	if *in.Bool("headless") {
		return runHeadlessOn(ctx, a)
	}
	if err := a.headlessOff(ctx, true); err != nil {
		return err
	}
	t, err := a.loginToggle()
	if err != nil {
		return err
	}
	if l, ok := t.(*cocoa.Login); ok && l.Service != nil {
		return runLoginService(ctx, a, l, "on", false)
	}
	err = t.Set(ctx, true) // through the toggle: its refusals hold here too
	it := agentItem(t)
	if errors.Is(err, login.ErrNoSession) {
		fmt.Fprintln(a.Stdout, a.say().T("RAMBar will start at your next login (%s).", it.Path()))
		fmt.Fprintf(a.Stdout, "  %s\n", a.say().T("note: %v", login.ErrNoSession))
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(a.Stdout, a.say().T("RAMBar starts at login (%s) and mounts the presets marked --auto-mount.", it.Path()))
	return nil
}

func runLoginOff(ctx context.Context, a *App, in *input) error {
	if err := a.headlessOff(ctx, false); err != nil {
		return err
	}
	t, err := a.loginToggle()
	if err != nil {
		return err
	}
	if l, ok := t.(*cocoa.Login); ok && l.Service != nil {
		return runLoginService(ctx, a, l, "off", false)
	}
	if err := t.Set(ctx, false); err != nil {
		return err
	}
	fmt.Fprintln(a.Stdout, a.say().T("RAMBar no longer starts at login."))
	return nil
}

func runLoginStatus(ctx context.Context, a *App, in *input) error {
	asJSON := in.Bool("json")
	if done, err := a.headlessStatus(ctx, *asJSON); done || err != nil {
		return err
	}
	t, err := a.loginToggle()
	if err != nil {
		return err
	}
	l, _ := t.(*cocoa.Login)
	if l != nil && l.Service != nil {
		return runLoginService(ctx, a, l, "status", *asJSON)
	}
	it := agentItem(t)
	if it == nil {
		return l.Refused // this copy has no agent either (translocated, no HOME)
	}
	st, err := it.Status(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.Stdout, struct {
			Version int `json:"version"`
			login.Status
		}{jsonVersion, st})
	}
	say := a.say()
	if !st.Enabled {
		fmt.Fprintln(a.Stdout, say.T("off: RAMBar does not start at login. Turn it on with: rambar login on"))
	} else {
		fmt.Fprintln(a.Stdout, say.T("on: %s starts %s", st.Path, st.Program))
	}
	if st.Enabled && st.Stale {
		fmt.Fprintln(a.Stdout, "  "+say.T("note: that is not this copy of RAMBar (%s); run 'rambar login on' to point it here", it.Executable))
	}
	if st.Enabled && st.Loaded != nil && !*st.Loaded {
		fmt.Fprintln(a.Stdout, "  "+say.T("note: launchd has not loaded it in this session; it loads at the next login"))
	}
	if l != nil && l.NoService != nil {
		fmt.Fprintf(a.Stdout, "  why not SMAppService: %v\n", l.NoService)
	}
	return nil
}

// agentItem is the LaunchAgent or autostart entry behind a toggle (nil
// when this copy can have none).
func agentItem(t cocoa.Toggle) *login.Item {
	switch t := t.(type) {
	case *login.Item:
		return t
	case *cocoa.Login:
		it, _ := t.Agent.(*login.Item)
		return it
	}
	return nil
}

// loginToggle is the login item both front ends turn on and off, through
// the same checks: on macOS, SMAppService from RAMBar.app with the
// LaunchAgent where SMAppService is missing or refuses, and a copy that
// runs translocated or from its disk image refused either way; elsewhere
// the XDG autostart entry.
func (a *App) loginToggle() (cocoa.Toggle, error) {
	it, itErr := a.loginItem()
	svc, svcErr := a.loginService()
	return loginToggleOf(runtime.GOOS, it, itErr, svc, svcErr, a.loginNote())
}

// loginToggleOf picks the login item for goos from what was found: the
// agent or autostart entry (or why this copy can't have one), SMAppService
// (or why there is none), and where the fallback's reason is kept.
func loginToggleOf(goos string, it *login.Item, itErr error, svc cocoa.LoginService, svcErr error, note cocoa.FallbackNote) (cocoa.Toggle, error) {
	if goos != "darwin" {
		if itErr != nil {
			return nil, itErr
		}
		return it, nil
	}
	l := &cocoa.Login{Service: svc, NoService: svcErr, Refused: itErr, Note: note}
	if it != nil {
		l.Agent = it
	}
	return l, nil
}

// loginNote keeps why the LaunchAgent is used instead of SMAppService in
// the data folder (nil without one).
func (a *App) loginNote() cocoa.FallbackNote {
	if a.Paths.Data == "" {
		return nil
	}
	return fileNote(filepath.Join(a.Paths.Data, "login-fallback.txt"))
}

// fileNote is a cocoa.FallbackNote in a file of one line.
type fileNote string

// Read implements cocoa.FallbackNote.
func (f fileNote) Read() string {
	b, err := os.ReadFile(string(f))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Write implements cocoa.FallbackNote.
func (f fileNote) Write(reason string) error {
	if reason == "" {
		if err := os.Remove(string(f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(string(f)), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(string(f), []byte(reason+"\n"), 0o600)
}

// LoginEnabled is the tray's "Launch at Login" checkbox state: whether this
// program starts at the next login (read from the agent or autostart file,
// or SMAppService's status).
func (a *App) LoginEnabled(ctx context.Context) (bool, error) {
	l, err := a.loginToggle()
	if err != nil {
		return false, err
	}
	return l.Enabled(ctx)
}

// SetLogin is the tray's "Launch at Login" checkbox action: the same
// toggle, and the same refusals, as `rambar login on` and `off`.
func (a *App) SetLogin(ctx context.Context, on bool) error {
	l, err := a.loginToggle()
	if err != nil {
		return err
	}
	return l.Set(ctx, on)
}

// runLoginService is `rambar login` on macOS (cocoa.Login): SMAppService,
// or the LaunchAgent and why.
func runLoginService(ctx context.Context, a *App, l *cocoa.Login, verb string, asJSON bool) error {
	say := a.say()
	switch verb {
	case "on", "off":
		err := l.Set(ctx, verb == "on")
		switch {
		case errors.Is(err, cocoa.ErrNeedsApproval):
			fmt.Fprintln(a.Stdout, say.T("RAMBar is a login item now, waiting for you: %v.", err))
			return nil
		case err != nil:
			return err
		case verb == "off":
			fmt.Fprintln(a.Stdout, say.T("RAMBar no longer starts at login."))
			return nil
		}
		st, err := l.State(ctx)
		if err != nil {
			return err
		}
		if st.Way == "LaunchAgent" {
			fmt.Fprintln(a.Stdout, say.T("RAMBar starts at login (a LaunchAgent) and mounts the presets marked --auto-mount."))
			fmt.Fprintln(a.Stdout, "  "+say.T("note: %v", st.Why))
			return nil
		}
		fmt.Fprintln(a.Stdout, say.T("RAMBar starts at login (System Settings › General › Login Items) and mounts the presets marked --auto-mount."))
		return nil
	}
	st, err := l.State(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(a.Stdout, struct {
			Version int `json:"version"`
			cocoa.LoginState
		}{jsonVersion, st})
	}
	switch {
	case st.Way == "SMAppService":
		fmt.Fprintln(a.Stdout, say.T("on: RAMBar starts at login (SMAppService: %s)", st.Service))
	case st.Way == "LaunchAgent":
		fmt.Fprintln(a.Stdout, say.T("on: RAMBar starts at login through a LaunchAgent (SMAppService: %s)", st.Service))
	default:
		fmt.Fprintln(a.Stdout, say.T("off: RAMBar does not start at login (SMAppService: %s). Turn it on with: rambar login on", st.Service))
	}
	if st.Why != "" {
		fmt.Fprintln(a.Stdout, "  "+say.T("why not SMAppService: %s", st.Why))
	}
	if l.Refused != nil {
		fmt.Fprintln(a.Stdout, "  "+say.T("note: this copy can't be the login item: %v", l.Refused))
	}
	return nil
}
