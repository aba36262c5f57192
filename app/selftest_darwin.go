package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"rambar/darwin/cocoa"
	"rambar/internal/run"
	"rambar/selftest"
)

// What the self-test's native lines check on macOS.
const (
	trayItemRule   = "the NSStatusItem fyne's delegate made shows the title the menu set (its button's title, read back from AppKit), and the delegate's menu holds the entries"
	notifyPostRule = "one notification through the app's notifier (UNUserNotificationCenter from RAMBar.app; skipped, with the reason, when macOS does not allow it: turned off, not from the bundle, or an ad-hoc build refused)"
	loginRule      = "SMAppService's status of RAMBar.app and what `rambar login status` says (which way starts RAMBar, and why not SMAppService), read only"
	sessionRule    = "a file written on the kept disk is saved by the menu bar's guard before sleep; applicationShouldTerminate: is answered by the menu bar's own delegate (added to its class, never swapped), the workspace observers are set, relaunch at login is off"
)

// readTrayTitle reads the status item's title back from AppKit.
func readTrayTitle(ctx context.Context) (string, error) {
	return cocoa.StatusItemTitle(ctx, statusItemIvar)
}

// readTrayMenu reads the titles of the menu bar's menu (fyne's delegate
// keeps it in its "menu" instance variable).
func readTrayMenu(ctx context.Context) ([]string, error) {
	return cocoa.StatusMenuTitles(ctx, "menu")
}

// nativeChecks are the main menu's Edit items, a dialog's focus, and the
// notifications' authorisation, read back from AppKit.
func (a *App) nativeChecks(ctx context.Context) []selftest.Check {
	var w cocoa.Wiring
	var werr error
	edit := selftest.Timed(func() selftest.Check {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		w, werr = cocoa.Probe(pctx)
		c := selftest.Passf(checkMenuEdit, "%d Edit entries: %s", len(w.EditMenu), entries(w.EditMenu))
		if bad := cocoa.CheckEditMenu(w.EditMenu); len(bad) > 0 || werr != nil {
			c = selftest.Failf(checkMenuEdit, "%v", errors.Join(werr, errors.New(strings.Join(bad, "; "))))
		}
		c.Rule = "the main menu (never shown) has an Edit submenu sending cut:, copy:, paste:, selectAll:, undo:, redo: to the first responder on ⌘X ⌘C ⌘V ⌘A ⌘Z ⇧⌘Z"
		c.Data = map[string]any{"wiring": w}
		return c
	})
	dialog := selftest.Timed(func() selftest.Check {
		p, err := cocoa.ProbeDialog(ctx)
		c := selftest.Passf(checkDialogFocus, "the dialog had the keyboard: active, key window, field edited, paste: reachable, ⌘A taken by the main menu; a popup kept %d items of equal titles", p.PopupItems)
		if bad := p.Problems(); len(bad) > 0 || err != nil {
			c = selftest.Failf(checkDialogFocus, "%v", errors.Join(err, errors.New(strings.Join(bad, "; "))))
		}
		c.Rule = "an alert with a text field, shown as every RAMBar dialog is (activateIgnoringOtherApps:, window to the front), has the keyboard while up; a popup of items with equal titles keeps them all"
		c.Data = map[string]any{"probe": p}
		return c
	})
	auth := selftest.Timed(func() selftest.Check {
		r := cocoa.Describe(ctx)
		c := selftest.Passf(checkNotifyAuth, "%s; the notification delegate is %s", r.Notify, set(w.NotificationDelegate))
		switch {
		case !r.InBundle:
			c = selftest.Skipf(checkNotifyAuth, "not running from RAMBar.app: %s", r.NotifyErr)
		case r.NotifyErr != "":
			c = selftest.Failf(checkNotifyAuth, "%s", r.NotifyErr)
		case !w.NotificationDelegate:
			c = selftest.Failf(checkNotifyAuth, "%s, but RAMBar's UNUserNotificationCenterDelegate is not set: notifications are dropped while RAMBar is frontmost", r.Notify)
		}
		c.Rule = "UNUserNotificationCenter's authorisation (read without prompting) and RAMBar's delegate set on it"
		c.Data = map[string]any{"natives": r}
		return c
	})
	return []selftest.Check{edit, dialog, auth}
}

func set(ok bool) string {
	if ok {
		return "set"
	}
	return "not set"
}

func entries(es []cocoa.MenuEntry) string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return strings.Join(out, ", ")
}

// notifyServer says the notifications' authorisation (read without
// prompting), for a notification that could not be posted.
func notifyServer(ctx context.Context) string {
	r := cocoa.Describe(ctx)
	if r.NotifyErr != "" {
		return "notification authorisation unknown: " + r.NotifyErr
	}
	return fmt.Sprintf("notification authorisation: %s", r.Notify)
}

// notifySkipped: macOS did not allow the notification (turned off, not
// from the bundle, an ad-hoc build refused): said, not failed.
func notifySkipped(err error) (string, bool) {
	if errors.Is(err, cocoa.ErrNotAllowed) {
		return err.Error() + " (ad-hoc builds may be refused: notifications need a Developer ID build)", true
	}
	return "", false
}

// loginCheck reads SMAppService's status and what `rambar login status`
// says.
func loginCheck(ctx context.Context, tg cocoa.Toggle) selftest.Check {
	l, ok := tg.(*cocoa.Login)
	if !ok {
		return selftest.Failf(checkLoginService, "the login item is a %T", tg)
	}
	st, err := l.State(ctx)
	if err != nil && !errors.Is(err, cocoa.ErrNeedsApproval) {
		return selftest.Failf(checkLoginService, "%v", err)
	}
	on := "off"
	if st.Enabled {
		on = "on through " + st.Way
	}
	c := selftest.Passf(checkLoginService, "SMAppService: %s; RAMBar starts at login: %s", st.Service, on)
	if l.Service == nil {
		c = selftest.Skipf(checkLoginService, "SMAppService not available (%s); RAMBar starts at login: %s", st.Why, on)
	}
	c.Data = map[string]any{"login": st}
	if l.Refused != nil {
		c.Data["refused"] = l.Refused.Error()
	}
	return c
}

// sessionWiring reads back how logout, sleep and quit reach the guard.
func sessionWiring(ctx context.Context) ([]string, string) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	w, err := cocoa.Probe(ctx)
	if err != nil {
		return []string{fmt.Sprintf("read the wiring back: %v", err)}, ""
	}
	return w.SessionProblems(), fmt.Sprintf("applicationShouldTerminate: answered by %s, the session watched", w.DelegateClass)
}

// systemRelease is macOS's version (sw_vers).
func systemRelease(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	res, err := run.System().Run(ctx, run.Cmd{Argv: []string{"sw_vers", "-productVersion"}})
	if err != nil {
		return ""
	}
	return "macOS " + strings.TrimSpace(string(res.Stdout))
}
