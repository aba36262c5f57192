package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"rambar/darwin/cocoa"
	"rambar/internal/run"
	"rambar/login"
)

func init() {
	register(&command{Name: "login", Summary: "start RAMBar at login (a LaunchAgent on macOS, XDG autostart on Linux)",
		Doc: "At each login RAMBar starts and mounts the presets marked --auto-mount.",
		Subs: []*command{
			{Name: "on", Summary: "start RAMBar at each login", Example: "login on", Run: runLoginOn},
			{Name: "off", Summary: "no longer start RAMBar at login", Example: "login off", Run: runLoginOff},
			{Name: "status", Summary: "say whether RAMBar starts at login, what it starts, and whether that is this copy",
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
	it, err := a.loginItem()
	if err != nil {
		return err
	}
	if svc := a.loginService(); svc != nil {
		return runLoginService(ctx, a, &cocoa.Login{Service: svc, Agent: it}, "on", false)
	}
	err = it.Set(ctx, true)
	if errors.Is(err, login.ErrNoSession) {
		fmt.Fprintf(a.Stdout, "RAMBar will start at your next login (%s).\n  note: %v\n", it.Path(), login.ErrNoSession)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "RAMBar starts at login (%s) and mounts the presets marked --auto-mount.\n", it.Path())
	return nil
}

func runLoginOff(ctx context.Context, a *App, in *input) error {
	it, err := a.loginItem()
	if err != nil {
		return err
	}
	if svc := a.loginService(); svc != nil {
		return runLoginService(ctx, a, &cocoa.Login{Service: svc, Agent: it}, "off", false)
	}
	if err := it.Set(ctx, false); err != nil {
		return err
	}
	fmt.Fprintln(a.Stdout, "RAMBar no longer starts at login.")
	return nil
}

func runLoginStatus(ctx context.Context, a *App, in *input) error {
	asJSON := in.Bool("json")
	it, err := a.loginItem()
	if err != nil {
		return err
	}
	if svc := a.loginService(); svc != nil {
		return runLoginService(ctx, a, &cocoa.Login{Service: svc, Agent: it}, "status", *asJSON)
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
	if !st.Enabled {
		fmt.Fprintln(a.Stdout, "off: RAMBar does not start at login. Turn it on with: rambar login on")
		return nil
	}
	fmt.Fprintf(a.Stdout, "on: %s starts %s\n", st.Path, st.Program)
	if st.Stale {
		fmt.Fprintf(a.Stdout, "  note: that is not this copy of RAMBar (%s); run 'rambar login on' to point it here\n", it.Executable)
	}
	if st.Loaded != nil && !*st.Loaded {
		fmt.Fprintln(a.Stdout, "  note: launchd has not loaded it in this session; it loads at the next login")
	}
	return nil
}

// loginToggle is the login item both front ends turn on and off: on macOS
// 13+ from RAMBar.app, SMAppService with the LaunchAgent as the fallback;
// elsewhere the LaunchAgent or XDG autostart entry itself.
func (a *App) loginToggle() (cocoa.Toggle, error) {
	it, err := a.loginItem()
	if svc := a.loginService(); svc != nil {
		l := &cocoa.Login{Service: svc}
		if err == nil {
			l.Agent = it
		}
		return l, nil
	}
	if err != nil {
		return nil, err
	}
	return it, nil
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

// SetLogin is the tray's "Launch at Login" checkbox action.
func (a *App) SetLogin(ctx context.Context, on bool) error {
	l, err := a.loginToggle()
	if err != nil {
		return err
	}
	return l.Set(ctx, on)
}

// runLoginService is `rambar login` where SMAppService decides (macOS 13+,
// from RAMBar.app).
func runLoginService(ctx context.Context, a *App, l *cocoa.Login, verb string, asJSON bool) error {
	switch verb {
	case "on", "off":
		err := l.Set(ctx, verb == "on")
		switch {
		case errors.Is(err, cocoa.ErrNeedsApproval):
			fmt.Fprintf(a.Stdout, "RAMBar is a login item now, waiting for you: %v.\n", err)
			return nil
		case err != nil:
			return err
		case verb == "on":
			fmt.Fprintln(a.Stdout, "RAMBar starts at login (System Settings › General › Login Items) and mounts the presets marked --auto-mount.")
		default:
			fmt.Fprintln(a.Stdout, "RAMBar no longer starts at login.")
		}
		return nil
	}
	st, err := l.Service.Status()
	if err != nil {
		return fmt.Errorf("login item: SMAppService status: %w", err)
	}
	on, err := l.Enabled(ctx)
	if err != nil && !errors.Is(err, cocoa.ErrNeedsApproval) {
		return err
	}
	if asJSON {
		return writeJSON(a.Stdout, struct {
			Version int    `json:"version"`
			Enabled bool   `json:"enabled"`
			Service string `json:"service"`
		}{jsonVersion, on, st.String()})
	}
	if on {
		fmt.Fprintf(a.Stdout, "on: RAMBar starts at login (SMAppService: %s)\n", st)
		return nil
	}
	fmt.Fprintf(a.Stdout, "off: RAMBar does not start at login (SMAppService: %s). Turn it on with: rambar login on\n", st)
	return nil
}
