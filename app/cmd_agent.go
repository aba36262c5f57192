package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"

	"rambar/disks"
	"rambar/i18n"
	"rambar/internal/signals"
	"rambar/localapi"
)

func init() {
	register(&command{Name: "agent", Summary: i18n.N("keep disks saved without the menu bar: autosave, the change feeds, the saves before sleep and shutdown"),
		Doc: i18n.N("The menu-bar app without its menu, for a machine without a desktop or a tray (a server, a build box). " +
			"It mounts the presets marked --auto-mount, saves kept and mirrored disks as the menu-bar app does (by their " +
			"interval, seconds after each change with --save-every auto, before sleep, and at SIGTERM, logout and shutdown), " +
			"and answers the CLI: save, info, list, snapshots, eject, keep, refresh and restore ask it when it runs. " +
			"One runs per user and data folder, the menu-bar app included: a second copy exits at once. " +
			"'rambar login on --headless' starts it at boot (a systemd user service; a LaunchAgent on macOS)."),
		Example: "agent\nlogin on --headless", Order: 49, Run: runAgent})
}

// runAgent keeps this data folder's disks until SIGTERM, SIGINT or SIGHUP,
// then makes the last save.
func runAgent(ctx context.Context, a *App, in *input) error {
	release, ok, err := a.onlyInstance()
	if !ok {
		return err
	}
	defer release()
	svc, err := a.service()
	if err != nil {
		return err
	}
	if _, err := svc.Keeper(); err != nil {
		return err
	}
	for _, err := range svc.Caches().Repair(ctx) { // started at login: no cache may point at a missing disk
		fmt.Fprintf(a.Stderr, "rambar: warning: %v\n", err)
	}
	if !a.notificationServer() {
		a.notifyVia = a.logNotice
	}
	notes, p := a.notices(), a.lang()
	menu := disks.NewMenu(svc)
	noticesOf(menu, notes, p)
	c := a.newContents(menu)
	g := a.sessionGuard(c, notes, nil)
	stopped, stop := signal.NotifyContext(ctx, signals.Stop()...)
	defer stop()
	end := a.keep(ctx, c, notes, g)
	where := "no local API"
	if p, err := localapi.PlaceFor(runtime.GOOS, a.Getenv, a.Paths.Data); err == nil {
		where = "the CLI asks it at " + p.Path()
	}
	fmt.Fprintf(a.Stderr, "rambar: agent (pid %d) keeps the disks of %s; %s\n", os.Getpid(), a.Paths.Data, where)
	upPresets(ctx, p, menu, notes.Notify)
	<-stopped.Done()
	end()
	return nil
}

// onlyInstance takes the data folder's single-instance lock for the agent
// or the menu-bar app. When another holds it, it says which (sayRunning)
// and ok is false with no error: a second copy exits 0.
func (a *App) onlyInstance() (release func(), ok bool, err error) {
	release, err = a.singleInstance()
	if errors.Is(err, errAlreadyRunning) {
		a.sayRunning()
		return nil, false, nil
	}
	return release, err == nil, err
}

// sayRunning is what a second copy of the agent or the menu-bar app says
// before it exits 0: which one runs.
func (a *App) sayRunning() {
	if pid, ok := a.menuBarPID(); ok {
		fmt.Fprintf(a.Stderr, "rambar: already running (pid %d) for %s: the menu-bar app or 'rambar agent' keeps its disks\n", pid, a.Paths.Data)
		return
	}
	fmt.Fprintln(a.Stderr, "rambar: already running")
}

// notificationServer reports whether notices can reach a desktop: on
// Linux a session bus or a display; the agent of a server writes them to
// its log (stderr, the journal) only.
func (a *App) notificationServer() bool {
	if runtime.GOOS != "linux" {
		return true
	}
	return a.Getenv("DISPLAY") != "" || a.Getenv("WAYLAND_DISPLAY") != ""
}
