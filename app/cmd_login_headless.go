package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"runtime"

	"rambar/i18n"
	"rambar/internal/run"
	"rambar/login"
)

// `rambar login on --headless`: the agent (`rambar agent`, the app's
// keeping without its menu) as a service that starts with the user's
// systemd manager (Linux) or launchd (macOS), for machines used without
// the menu bar. One RAMBar runs per user and data folder, so turning one
// kind on turns the other off; `login off` turns off both.

var headlessFlag = flagBool("headless", i18n.N("start 'rambar agent' instead of the menu-bar app: a systemd user service on Linux, a LaunchAgent on macOS (for machines without a desktop)"))

// headlessEnv are the variables that choose the data folder and the
// disks' place: the service is started with them as this command has
// them, so it keeps the same disks.
var headlessEnv = []string{"RAMBAR_HOME", "RAMBAR_MOUNT_ROOT", "XDG_CONFIG_HOME", "XDG_DATA_HOME"}

// headlessItem is this program's headless agent item.
func (a *App) headlessItem() (*login.Item, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("service: find this program: %w", err)
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	var env []string
	for _, k := range headlessEnv {
		if v := a.Getenv(k); v != "" {
			if abs, err := filepath.Abs(v); err == nil {
				v = abs
			}
			env = append(env, k+"="+v)
		}
	}
	return login.NewHeadless(runtime.GOOS, a.Getenv, exe, os.Getuid(), run.System(), env)
}

func runHeadlessOn(ctx context.Context, a *App) error {
	it, err := a.headlessItem()
	if err != nil {
		return err
	}
	err = it.Set(ctx, true)
	later := errors.Is(err, login.ErrNoManager) || errors.Is(err, login.ErrNoSession)
	if err != nil && !later {
		return err
	}
	if t, terr := a.loginToggle(); terr == nil { // the menu-bar app would find the agent running and quit
		if on, _ := t.Enabled(ctx); on {
			if err := t.Set(ctx, false); err != nil {
				return fmt.Errorf("the agent is on, but turning off the menu-bar app's login item failed: %w", err)
			}
			fmt.Fprintln(a.Stdout, a.say().T("The menu-bar app no longer starts at login: the agent does its work."))
		}
	}
	say := a.say()
	what := say.T("a systemd user service")
	if runtime.GOOS == "darwin" {
		what = say.T("a LaunchAgent")
	}
	if later {
		fmt.Fprintln(a.Stdout, say.T("The RAMBar agent is %s (%s) and starts later.", what, it.Path()))
		fmt.Fprintln(a.Stdout, "  "+say.T("note: %v", err))
		return nil
	}
	fmt.Fprintln(a.Stdout, say.T("The RAMBar agent runs now, as %s (%s): it mounts the presets marked --auto-mount "+
		"and keeps kept and mirrored disks saved; the CLI asks it.", what, it.Path()))
	if runtime.GOOS == "linux" && !lingering() {
		fmt.Fprintln(a.Stdout, "  "+say.T("note: it runs while you are logged in; 'loginctl enable-linger' runs it from boot, without a login"))
	}
	return nil
}

// lingering reports whether systemd keeps this user's manager from boot
// (loginctl enable-linger).
func lingering() bool {
	u, err := user.Current()
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join("/var/lib/systemd/linger", u.Username))
	return err == nil
}

// headlessOff turns the headless agent off if it is on, saying so (and
// that the menu-bar app takes over, forMenuBar); nothing is said when it
// was off.
func (a *App) headlessOff(ctx context.Context, forMenuBar bool) error {
	it, err := a.headlessItem()
	if err != nil {
		return nil // no place for one, so none is on
	}
	if _, err := os.Stat(it.Path()); err != nil {
		return nil
	}
	if err := it.Set(ctx, false); err != nil && !errors.Is(err, login.ErrNoManager) {
		return err
	}
	if forMenuBar {
		fmt.Fprintln(a.Stdout, a.say().T("The RAMBar agent no longer starts (%s removed): the menu-bar app starts at login instead.", it.Path()))
		return nil
	}
	fmt.Fprintln(a.Stdout, a.say().T("The RAMBar agent no longer starts (%s removed).", it.Path()))
	return nil
}

// headlessStatus is `login status` when the headless agent is on; done is
// false when it is off (the menu-bar app's item is then told).
func (a *App) headlessStatus(ctx context.Context, asJSON bool) (done bool, err error) {
	it, err := a.headlessItem()
	if err != nil {
		return false, nil
	}
	st, err := it.Status(ctx)
	if err != nil || !st.Enabled {
		return err != nil, err
	}
	if asJSON {
		return true, writeJSON(a.Stdout, struct {
			Version int `json:"version"`
			login.Status
		}{jsonVersion, st})
	}
	say := a.say()
	switch {
	case st.Active != nil && *st.Active:
		fmt.Fprintln(a.Stdout, say.T("on, headless: %s starts %s agent; it runs now", st.Path, st.Program))
	case st.Active != nil:
		fmt.Fprintln(a.Stdout, say.T("on, headless: %s starts %s agent; it does not run now ('systemctl --user status rambar' says why)", st.Path, st.Program))
	default:
		fmt.Fprintln(a.Stdout, say.T("on, headless: %s starts %s agent", st.Path, st.Program))
	}
	if st.Stale {
		fmt.Fprintln(a.Stdout, "  "+say.T("note: that is not this copy of RAMBar (%s); run 'rambar login on --headless' to point it here", it.Executable))
	}
	if st.Loaded != nil && !*st.Loaded {
		fmt.Fprintln(a.Stdout, "  "+say.T("note: launchd has not loaded it in this session; it loads at the next login"))
	}
	return true, nil
}
