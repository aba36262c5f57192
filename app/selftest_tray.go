package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"rambar/darwin/cocoa"
	"rambar/selftest"
	"rambar/tray"
)

// The self-test's run of the real menu bar: the checks of the native side
// are made while it is up. Their names, in the report's order.
const (
	checkTrayItem     = "tray.item"
	checkMenuEdit     = "menu.edit"
	checkDialogFocus  = "dialog.focus"
	checkNotifyAuth   = "notify.auth"
	checkNotifyPost   = "notify.post"
	checkLoginService = "login.service"
	checkSessionGuard = "session.guard"
)

// trayCheckNames are the checks made while the menu bar runs.
var trayCheckNames = []string{checkTrayItem, checkMenuEdit, checkDialogFocus, checkNotifyAuth, checkNotifyPost, checkLoginService, checkSessionGuard}

// selfTestTitle is what the self-test puts in the menu bar's title (the
// status line) and reads back from the status item.
const selfTestTitle = "RAMBar self-test"

// trayCheckBound bounds the whole run of the menu bar.
const trayCheckBound = 3 * time.Minute

// selftestMenuBar runs the real menu bar, with the self-test's private
// data folder (so its guard saves the self-test's kept disk, never the
// user's), makes the native checks once it is up, and ends it. When the
// menu bar cannot start, each of its checks fails with the reason.
func (a *App) selftestMenuBar(ctx context.Context, r *selftest.Runner) []selftest.Check {
	t := &App{Stdout: a.Stdout, Stderr: a.Stderr, Stdin: a.Stdin, NewEngine: a.NewEngine, Paths: r.Paths(),
		Getenv: a.Getenv, Now: a.Now, engine: a.engine}
	t.notifyVia = a.notifyVia
	ctx, cancel := context.WithTimeout(ctx, trayCheckBound)
	defer cancel()
	var mu sync.Mutex
	var checks []selftest.Check
	stop := make(chan struct{})
	var once sync.Once
	end := func() { once.Do(func() { close(stop) }) }
	context.AfterFunc(ctx, end)
	err := t.trayRun(ctx, &trayHooks{stop: stop, ready: func(d *tray.Deps, g *cocoa.Guard) {
		defer end()
		cs := t.trayChecks(ctx, r, d, g)
		mu.Lock()
		checks = cs
		mu.Unlock()
	}})
	mu.Lock()
	defer mu.Unlock()
	if checks == nil {
		why := "it ended before it was up"
		if err != nil {
			why = err.Error()
		}
		checks = append(checks, selftest.Failf(trayCheckNames[0], "the menu bar did not start: %s", why))
		for _, n := range trayCheckNames[1:] {
			checks = append(checks, selftest.Failf(n, "the menu bar did not start (%s)", trayCheckNames[0]))
		}
	}
	return checks
}

// trayChecks are the checks made while the menu bar is up.
func (a *App) trayChecks(ctx context.Context, r *selftest.Runner, d *tray.Deps, g *cocoa.Guard) []selftest.Check {
	cs := []selftest.Check{selftest.Timed(func() selftest.Check { return a.checkTrayItem(ctx, d) })}
	cs = append(cs, a.nativeChecks(ctx)...)
	cs = append(cs, selftest.Timed(func() selftest.Check { return a.checkNotifyPost(ctx) }))
	cs = append(cs, selftest.Timed(func() selftest.Check { return a.checkLogin(ctx) }))
	cs = append(cs, selftest.Timed(func() selftest.Check { return a.checkSessionGuard(ctx, r, g) }))
	return cs
}

// checkTrayItem shows the self-test's words in the menu bar's title
// (through the status line, as "Saving before logout…" is shown) and reads
// the status item's title back from the platform's own status item.
func (a *App) checkTrayItem(ctx context.Context, d *tray.Deps) selftest.Check {
	if d.Status == nil {
		return selftest.Failf(checkTrayItem, "the menu has no status line (no data folder)")
	}
	// The item must exist before its title is set: fyne's Linux side says
	// it is ready before it exports its properties, and a title set in
	// between is kept by fyne but not shown until it changes again.
	var title string
	var err error
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if title, err = readTrayTitle(ctx); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	d.Status.Set(selfTestTitle)
	defer d.Status.Set("")
	reset := false
	deadline = time.Now().Add(15 * time.Second)
	for start := time.Now(); time.Now().Before(deadline) && ctx.Err() == nil; {
		if title, err = readTrayTitle(ctx); err == nil && strings.Contains(title, selfTestTitle) {
			break
		}
		if !reset && time.Since(start) > 5*time.Second {
			d.Status.Set("")
			d.Status.Set(selfTestTitle)
			reset = true
		}
		time.Sleep(100 * time.Millisecond)
	}
	c := selftest.Passf(checkTrayItem, "the status item shows %q", title)
	switch {
	case err != nil:
		c = selftest.Failf(checkTrayItem, "the status item's title could not be read back: %v", err)
	case !strings.Contains(title, selfTestTitle):
		c = selftest.Failf(checkTrayItem, "the status item shows %q, not %q", title, selfTestTitle)
	}
	c.Rule = trayItemRule
	c.Data = map[string]any{"title": title, "title_set_twice": reset}
	// The menu is rebuilt when the status line comes and goes: read it
	// until it holds its last entry.
	var items []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(100 * time.Millisecond) {
		if items, err = readTrayMenu(ctx); err == nil && slices.Contains(items, "Quit RAMBar") {
			break
		}
	}
	c.Data["menu"] = items
	switch {
	case c.Status != selftest.Pass:
	case err != nil:
		c = withData(selftest.Failf(checkTrayItem, "the status item shows %q, but its menu could not be read: %v", title, err), c)
	case !slices.Contains(items, "Quit RAMBar"):
		c = withData(selftest.Failf(checkTrayItem, "the status item shows %q, but its menu lacks Quit RAMBar: %q", title, items), c)
	default:
		c = withData(selftest.Passf(checkTrayItem, "the status item shows %q; its menu holds %d entries, Quit RAMBar last", title, len(items)), c)
	}
	return c
}

// checkNotifyPost posts one notification through the App's one notifier;
// a failure says what stands behind it (the notification server on
// Linux, the authorisation on macOS).
func (a *App) checkNotifyPost(ctx context.Context) selftest.Check {
	err := a.notices().Notify("RAMBar self-test", "Notifications from RAMBar look like this one.")
	c := selftest.Passf(checkNotifyPost, "posted")
	switch {
	case err == nil && a.Getenv("RAMBAR_NOTIFY") == "log":
		c = selftest.Skipf(checkNotifyPost, "RAMBAR_NOTIFY=log: notices are written to stderr only")
	case err != nil:
		if why, skip := notifySkipped(err); skip {
			c = selftest.Skipf(checkNotifyPost, "not shown: %s", why)
		} else {
			c = selftest.Failf(checkNotifyPost, "%v; %s", err, notifyServer(ctx))
		}
	}
	c.Rule = notifyPostRule
	return c
}

// checkLogin reads the login item as `rambar login status` does (read
// only: nothing is turned on or off).
func (a *App) checkLogin(ctx context.Context) selftest.Check {
	tg, err := a.loginToggle()
	if err != nil {
		c := selftest.Skipf(checkLoginService, "no login item for this copy: %v", err)
		c.Rule = loginRule
		return c
	}
	c := loginCheck(ctx, tg)
	c.Rule = loginRule
	return c
}

// checkSessionGuard writes a file on the self-test's kept disk and has the
// menu bar's session guard save before a (pretended) sleep: the disk must
// then have nothing unsaved. Where the native side wires the guard to
// AppKit, that wiring is read back too.
func (a *App) checkSessionGuard(ctx context.Context, r *selftest.Runner, g *cocoa.Guard) selftest.Check {
	if g == nil {
		return selftest.Failf(checkSessionGuard, "the menu bar has no session guard (no data folder)")
	}
	kept := r.KeptDisk()
	if kept == nil {
		return selftest.Failf(checkSessionGuard, "no kept disk to save (kept.roundtrip failed)")
	}
	if err := os.WriteFile(filepath.Join(kept.MountPoint, "written-before-sleep.txt"), []byte("saved by the session guard\n"), 0o644); err != nil {
		return selftest.Failf(checkSessionGuard, "%v", err)
	}
	var errs []error
	if err := g.Run(cocoa.WillSleep); err != nil {
		errs = append(errs, fmt.Errorf("the guard's save: %w", err))
	}
	if err := r.GuardSaved(ctx); err != nil {
		errs = append(errs, err)
	}
	problems, wired := sessionWiring(ctx)
	for _, p := range problems {
		errs = append(errs, errors.New(p))
	}
	c := selftest.Passf(checkSessionGuard, "the guard saved the kept disk before sleep; %s", wired)
	if len(errs) > 0 {
		c = selftest.Failf(checkSessionGuard, "%v", errors.Join(errs...))
	}
	c.Rule = sessionRule
	return c
}

// withData is c with the rule and data of from.
func withData(c, from selftest.Check) selftest.Check {
	c.Rule, c.Data = from.Rule, from.Data
	return c
}
